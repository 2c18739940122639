// oneDNN: an f32 convolution (stride 2, padding 1, bias) agrees with a naive loop nest.
#include <gtest/gtest.h>

#include <cmath>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <vector>

namespace {

using dnnl::memory;

struct ConvShape {
  int n = 1, ic = 5, ih = 11, iw = 13, oc = 7, kh = 3, kw = 3, stride = 2, pad = 1;
  int oh() const { return (ih + 2 * pad - kh) / stride + 1; }
  int ow() const { return (iw + 2 * pad - kw) / stride + 1; }
};

std::vector<float> NaiveConv(const ConvShape& s, const std::vector<float>& src,
                             const std::vector<float>& weights, const std::vector<float>& bias) {
  std::vector<float> dst(s.n * s.oc * s.oh() * s.ow());
  for (int n = 0; n < s.n; ++n)
    for (int oc = 0; oc < s.oc; ++oc)
      for (int y = 0; y < s.oh(); ++y)
        for (int x = 0; x < s.ow(); ++x) {
          double acc = bias[oc];
          for (int ic = 0; ic < s.ic; ++ic)
            for (int ky = 0; ky < s.kh; ++ky)
              for (int kx = 0; kx < s.kw; ++kx) {
                const int iy = y * s.stride - s.pad + ky, ix = x * s.stride - s.pad + kx;
                if (iy < 0 || iy >= s.ih || ix < 0 || ix >= s.iw) continue;
                acc += src[((n * s.ic + ic) * s.ih + iy) * s.iw + ix] *
                       weights[((oc * s.ic + ic) * s.kh + ky) * s.kw + kx];
              }
          dst[((n * s.oc + oc) * s.oh() + y) * s.ow() + x] = static_cast<float>(acc);
        }
  return dst;
}

TEST(DnnlSmokeTest, ConvolutionMatchesNaiveLoops) {
  const ConvShape s;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto random_vector = [&](size_t size) {
    std::vector<float> v(size);
    for (float& x : v) x = uniform(rng);
    return v;
  };
  std::vector<float> src = random_vector(s.n * s.ic * s.ih * s.iw);
  std::vector<float> weights = random_vector(s.oc * s.ic * s.kh * s.kw);
  std::vector<float> bias = random_vector(s.oc);
  std::vector<float> dst(s.n * s.oc * s.oh() * s.ow(), NAN);

  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const auto f32 = memory::data_type::f32;
  memory::desc src_md({s.n, s.ic, s.ih, s.iw}, f32, memory::format_tag::nchw);
  memory::desc weights_md({s.oc, s.ic, s.kh, s.kw}, f32, memory::format_tag::oihw);
  memory::desc bias_md({s.oc}, f32, memory::format_tag::x);
  memory::desc dst_md({s.n, s.oc, s.oh(), s.ow()}, f32, memory::format_tag::nchw);
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md, weights_md,
      bias_md, dst_md, {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad});
  dnnl::convolution_forward::primitive_desc pd(desc, engine);
  memory src_mem(src_md, engine, src.data()), weights_mem(weights_md, engine, weights.data());
  memory bias_mem(bias_md, engine, bias.data()), dst_mem(dst_md, engine, dst.data());
  dnnl::convolution_forward(pd).execute(stream, {{DNNL_ARG_SRC, src_mem},
                                                 {DNNL_ARG_WEIGHTS, weights_mem},
                                                 {DNNL_ARG_BIAS, bias_mem},
                                                 {DNNL_ARG_DST, dst_mem}});
  stream.wait();

  std::vector<float> expected = NaiveConv(s, src, weights, bias);
  ASSERT_EQ(dst.size(), expected.size());
  for (size_t i = 0; i < dst.size(); ++i) ASSERT_NEAR(dst[i], expected[i], 1e-4f) << "at " << i;
}

}  // namespace
