#include "compiler/ops/mali/host_pack.h"

#include <algorithm>
#include <cstring>

#include "compiler/support/check.h"

namespace tessel::ops::mali {
namespace {

void CheckFloat32(const runtime::NDArray& a, size_t ndim, const char* what) {
  TESSEL_CHECK(a.IsContiguous() && a.dtype().code == kDLFloat && a.dtype().bits == 32 &&
               a.shape().size() == ndim)
      << what << " needs a contiguous float32 tensor of rank " << ndim;
}

}  // namespace

runtime::NDArray PackOutputChannels(const runtime::NDArray& oihw, int64_t vc) {
  CheckFloat32(oihw, 4, "PackOutputChannels");
  const int64_t oc = oihw.shape()[0], ic = oihw.shape()[1], kh = oihw.shape()[2],
                kw = oihw.shape()[3];
  const int64_t blocks = (oc + vc - 1) / vc, taps = ic * kh * kw;
  runtime::NDArray out = runtime::NDArray::Empty({blocks, ic, kh, kw, vc}, oihw.dtype());
  const float* src = oihw.data<float>();
  float* dst = out.data<float>();
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t v = 0; v < vc; ++v) {
        const int64_t o = b * vc + v;
        dst[(b * taps + t) * vc + v] = o < oc ? src[o * taps + t] : 0.0f;
      }
    }
  }
  return out;
}

runtime::NDArray PadColumns(const runtime::NDArray& matrix, int64_t padded_cols) {
  CheckFloat32(matrix, 2, "PadColumns");
  const int64_t rows = matrix.shape()[0], cols = matrix.shape()[1];
  TESSEL_CHECK(padded_cols >= cols) << "PadColumns to " << padded_cols << " < " << cols;
  runtime::NDArray out = runtime::NDArray::Empty({rows, padded_cols}, matrix.dtype());
  for (int64_t r = 0; r < rows; ++r) {
    float* dst = out.data<float>() + r * padded_cols;
    std::memcpy(dst, matrix.data<float>() + r * cols, cols * sizeof(float));
    std::fill(dst + cols, dst + padded_cols, 0.0f);
  }
  return out;
}

}  // namespace tessel::ops::mali
