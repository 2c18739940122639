#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/te/tensor.h"

// Data movement: each operator is one compute whose element is one element of an input (or a
// constant), chosen by index arithmetic, so compute_inline can absorb it. Errors name the
// attribute and the mismatch.
namespace tessel::ops::nn {

// The inputs joined along `axis` (may count from the end); the other extents must agree.
absl::StatusOr<te::Tensor> Concatenate(const std::vector<te::Tensor>& inputs, int64_t axis);

// The resolved new shape: one entry may be -1 (inferred), the others >= 1, and the element
// counts must agree.
absl::StatusOr<std::vector<int64_t>> ReshapeShape(const std::vector<int64_t>& shape,
                                                  const std::vector<int64_t>& newshape);

// x's elements in row-major order, in the shape ReshapeShape gives.
absl::StatusOr<te::Tensor> Reshape(const te::Tensor& x, const std::vector<int64_t>& newshape);

// x as [prod(shape[:axis]), prod(shape[axis:])], axis in [-rank, rank].
absl::StatusOr<te::Tensor> Flatten(const te::Tensor& x, int64_t axis);

// Dimension d of the result is dimension axes[d] of x; axes is a permutation of the dimensions
// (entries may count from the end); empty axes reverse them.
absl::StatusOr<te::Tensor> Transpose(const te::Tensor& x, std::vector<int64_t> axes);

// How Pad fills: with `value`; with the nearest element of x (edge, numpy's "edge", torch's
// "replicate"); or with x mirrored about its first and last elements, which are not repeated
// (reflect: pads below the dimension's extent).
enum class PadMode { kConstant, kEdge, kReflect };

// x with pad_before[d] and pad_after[d] elements added around dimension d (one entry per
// dimension, each >= 0), filled as `mode` says.
absl::StatusOr<te::Tensor> Pad(const te::Tensor& x, const std::vector<int64_t>& pad_before,
                               const std::vector<int64_t>& pad_after, double value,
                               PadMode mode = PadMode::kConstant);

}  // namespace tessel::ops::nn
