#include "compiler/ops/host_layout.h"

#include "compiler/support/check.h"

namespace tessel::ops {
namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};

void CheckFloat(const runtime::NDArray& x, size_t rank) {
  TESSEL_CHECK(x.shape().size() == rank && x.dl()->dtype.code == kDLFloat &&
               x.dl()->dtype.bits == 32 && x.IsContiguous())
      << "host layout change of a tensor that is not a contiguous float32 of rank " << rank;
}

}  // namespace

runtime::NDArray PackChannels(const runtime::NDArray& x, int64_t cb) {
  CheckFloat(x, 4);
  const auto& s = x.shape();
  const int64_t n = s[0], c = s[1], hw = s[2] * s[3];
  TESSEL_CHECK(c % cb == 0) << "block " << cb << " does not divide " << c << " channels";
  runtime::NDArray out = runtime::NDArray::Empty({n, c / cb, s[2], s[3], cb}, kF32);
  const float* src = x.data<float>();
  float* dst = out.data<float>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float* in = src + (b * c + ch) * hw;
      float* o = dst + ((b * (c / cb) + ch / cb) * hw) * cb + ch % cb;
      for (int64_t p = 0; p < hw; ++p) o[p * cb] = in[p];
    }
  }
  return out;
}

runtime::NDArray UnpackChannels(const runtime::NDArray& x) {
  CheckFloat(x, 5);
  const auto& s = x.shape();
  const int64_t n = s[0], cc = s[1], hw = s[2] * s[3], cb = s[4];
  runtime::NDArray out = runtime::NDArray::Empty({n, cc * cb, s[2], s[3]}, kF32);
  const float* src = x.data<float>();
  float* dst = out.data<float>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < cc * cb; ++ch) {
      const float* in = src + ((b * cc + ch / cb) * hw) * cb + ch % cb;
      float* o = dst + (b * cc * cb + ch) * hw;
      for (int64_t p = 0; p < hw; ++p) o[p] = in[p * cb];
    }
  }
  return out;
}

runtime::NDArray PackConvWeight(const runtime::NDArray& x, int64_t ib, int64_t ob) {
  CheckFloat(x, 4);
  const auto& s = x.shape();
  const int64_t o = s[0], i = s[1], kk = s[2] * s[3];
  TESSEL_CHECK(o % ob == 0 && i % ib == 0) << "blocks " << ib << "i" << ob << "o do not divide "
                                           << i << "x" << o;
  runtime::NDArray out = runtime::NDArray::Empty({o / ob, i / ib, s[2], s[3], ib, ob}, kF32);
  const float* src = x.data<float>();
  float* dst = out.data<float>();
  for (int64_t oo = 0; oo < o; ++oo) {
    for (int64_t ii = 0; ii < i; ++ii) {
      for (int64_t k = 0; k < kk; ++k) {
        dst[((((oo / ob) * (i / ib) + ii / ib) * kk + k) * ib + ii % ib) * ob + oo % ob] =
            src[(oo * i + ii) * kk + k];
      }
    }
  }
  return out;
}

runtime::NDArray PackDepthwiseWeight(const runtime::NDArray& x, int64_t cb) {
  CheckFloat(x, 4);
  const auto& s = x.shape();
  const int64_t c = s[0], kk = s[2] * s[3];
  TESSEL_CHECK(s[1] == 1 && c % cb == 0) << "depthwise weight of shape [" << c << ", " << s[1]
                                         << ", ...] does not pack into blocks of " << cb;
  runtime::NDArray out = runtime::NDArray::Empty({c / cb, s[2], s[3], cb}, kF32);
  const float* src = x.data<float>();
  float* dst = out.data<float>();
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int64_t k = 0; k < kk; ++k) dst[((ch / cb) * kk + k) * cb + ch % cb] = src[ch * kk + k];
  }
  return out;
}

runtime::NDArray FlipTransposeWeight(const runtime::NDArray& x) {
  CheckFloat(x, 4);
  const auto& s = x.shape();
  const int64_t i = s[0], o = s[1], kh = s[2], kw = s[3];
  runtime::NDArray out = runtime::NDArray::Empty({o, i, kh, kw}, kF32);
  const float* src = x.data<float>();
  float* dst = out.data<float>();
  for (int64_t ii = 0; ii < i; ++ii) {
    for (int64_t oo = 0; oo < o; ++oo) {
      for (int64_t y = 0; y < kh; ++y) {
        for (int64_t xx = 0; xx < kw; ++xx) {
          dst[((oo * i + ii) * kh + (kh - 1 - y)) * kw + (kw - 1 - xx)] =
              src[((ii * o + oo) * kh + y) * kw + xx];
        }
      }
    }
  }
  return out;
}

}  // namespace tessel::ops
