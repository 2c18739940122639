#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

// Facts about a host DLTensor and an element copy between two of them, for tensors whose layout
// is given by strides rather than assumed compact.
//
// Conventions (DLPack's): element (i0, ..., in-1) lies at
//   (char*)data + byte_offset + (i0 * strides[0] + ... + in-1 * strides[n-1]) * element bytes,
// strides counted in elements; null strides mean compact row-major (C order). Strides may be
// zero or negative. Element bytes are DLTypeBytes(dtype) (dltype.h).
namespace tessel::runtime {

// The product of the extents (1 for a scalar, 0 when any extent is 0).
int64_t NumElements(const DLTensor& t);

// Whether t's elements lie in row-major order without gaps: null strides, or strides equal to
// the compact ones in every dimension of extent > 1 (the stride of an extent-1 dimension never
// matters). A tensor with no elements is compact.
bool IsCompact(const DLTensor& t);

// Copies every element of `from` to the same index of `to`, in row-major index order.
// Preconditions: both on the host, the same ndim and extents, and the same element size (the
// dtype's code is not looked at). Elements of `to` must not overlap elements of `from` unless
// both are compact.
void CopyElements(const DLTensor& from, const DLTensor& to);

}  // namespace tessel::runtime
