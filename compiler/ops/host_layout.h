#pragma once

#include <cstdint>

#include "compiler/runtime/ndarray.h"

// Layout changes of float32 tensors on the host, for templates' prepare/finish (OpProgram): what
// a graph compiler does once, outside the timed kernels. Each block size must divide the blocked
// dimension (a check: templates only pick dividing blocks).
namespace tessel::ops {

// NCHW [n, c, h, w] -> NCHW{cb}c [n, c / cb, h, w, cb].
runtime::NDArray PackChannels(const runtime::NDArray& nchw, int64_t cb);
// NCHW{cb}c [n, c / cb, h, w, cb] -> NCHW [n, c, h, w].
runtime::NDArray UnpackChannels(const runtime::NDArray& blocked);
// OIHW [o, i, kh, kw] -> OIHW{ib}i{ob}o [o / ob, i / ib, kh, kw, ib, ob].
runtime::NDArray PackConvWeight(const runtime::NDArray& oihw, int64_t ib, int64_t ob);
// Depthwise OIHW [c, 1, kh, kw] -> [c / cb, kh, kw, cb].
runtime::NDArray PackDepthwiseWeight(const runtime::NDArray& oihw, int64_t cb);
// conv2d_transpose's IOHW weight [i, o, kh, kw] -> the equivalent convolution's OIHW weight
// [o, i, kh, kw], flipped in both spatial dimensions.
runtime::NDArray FlipTransposeWeight(const runtime::NDArray& iohw);

}  // namespace tessel::ops
