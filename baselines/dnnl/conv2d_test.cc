// DnnlConv2d against a naive loop convolution, and its errors.
#include "baselines/dnnl/conv2d.h"

#include <gtest/gtest.h>

#include <random>

namespace tessel::baselines {
namespace {

using runtime::NDArray;

struct Case {
  int64_t n, ic, h, w, oc, k;
  std::vector<int64_t> stride, pad, dilation;
  int64_t groups;

  ops::OpArgs Args() const {
    return {{"n", n},          {"ic", ic}, {"h", h},           {"w", w},     {"oc", oc},
            {"kh", k},         {"kw", k},  {"stride", stride}, {"pad", pad}, {"dilation", dilation},
            {"groups", groups}};
  }
  int64_t Oh() const { return (h + pad[0] + pad[2] - dilation[0] * (k - 1) - 1) / stride[0] + 1; }
  int64_t Ow() const { return (w + pad[1] + pad[3] - dilation[1] * (k - 1) - 1) / stride[1] + 1; }
};

NDArray Random(std::vector<int64_t> shape, uint32_t seed) {
  NDArray a = NDArray::Empty(std::move(shape), {kDLFloat, 32, 1});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = uniform(rng);
  return a;
}

// out[b, o, y, x] = sum of data[b, c, y * s - pad_top + ky * d, ...] * weight[o, c', ky, kx] over
// the channels c of o's group.
std::vector<float> NaiveConv(const Case& c, const float* data, const float* weight) {
  const int64_t oh = c.Oh(), ow = c.Ow(), icg = c.ic / c.groups, ocg = c.oc / c.groups;
  std::vector<float> out;
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t o = 0; o < c.oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = 0;
          for (int64_t i = 0; i < icg; ++i)
            for (int64_t ky = 0; ky < c.k; ++ky)
              for (int64_t kx = 0; kx < c.k; ++kx) {
                const int64_t iy = y * c.stride[0] - c.pad[0] + ky * c.dilation[0];
                const int64_t ix = x * c.stride[1] - c.pad[1] + kx * c.dilation[1];
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                acc += double{data[((b * c.ic + (o / ocg) * icg + i) * c.h + iy) * c.w + ix]} *
                       weight[((o * icg + i) * c.k + ky) * c.k + kx];
              }
          out.push_back(static_cast<float>(acc));
        }
  return out;
}

TEST(DnnlConv2dTest, MatchesNaiveLoops) {
  const std::vector<Case> cases = {
      {1, 16, 10, 9, 32, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
      {2, 8, 11, 12, 16, 3, {2, 2}, {0, 1, 2, 1}, {1, 1}, 1},    // stride 2, asymmetric padding
      {1, 16, 9, 9, 8, 3, {1, 2}, {1, 1, 1, 1}, {1, 1}, 4},      // groups
      {1, 32, 14, 14, 32, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 32},  // depthwise, stride 2
      {1, 32, 12, 12, 32, 3, {1, 1}, {1, 0, 1, 2}, {1, 1}, 32},  // depthwise, asymmetric padding
      {1, 4, 12, 11, 8, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}, 1},     // dilation
      {1, 3, 23, 23, 16, 7, {2, 2}, {3, 3, 3, 3}, {1, 1}, 1},    // C1's kind
      {1, 64, 8, 8, 64, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},     // Winograd-friendly
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (const bool auto_algorithm : {false, true}) {
      SCOPED_TRACE(c.Args().dump() + (auto_algorithm ? " auto" : " direct"));
      absl::StatusOr<std::unique_ptr<DnnlConv2d>> conv =
          DnnlConv2d::Create(c.Args(), {.auto_algorithm = auto_algorithm});
      ASSERT_TRUE(conv.ok()) << conv.status();
      const NDArray data = Random({c.n, c.ic, c.h, c.w}, seed++);
      const NDArray weight = Random({c.oc, c.ic / c.groups, c.k, c.k}, seed++);
      ASSERT_TRUE((*conv)->SetInputs(data, weight).ok());
      (*conv)->Run();
      const NDArray out = (*conv)->Output();
      ASSERT_EQ(out.shape(), (std::vector<int64_t>{c.n, c.oc, c.Oh(), c.Ow()}));
      const std::vector<float> want = NaiveConv(c, data.data<float>(), weight.data<float>());
      // Winograd (auto) rounds more than direct convolution.
      const float tolerance = auto_algorithm ? 1e-3f : 1e-4f;
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(out.data<float>()[i], want[i], tolerance * (1 + std::abs(want[i])))
            << "at " << i << " (" << (*conv)->implementation() << ")";
      }
      EXPECT_DOUBLE_EQ((*conv)->flops(),
                       2.0 * c.n * c.oc * c.Oh() * c.Ow() * (c.ic / c.groups) * c.k * c.k);
    }
  }
}

TEST(DnnlConv2dTest, BadArgumentsAndInputsAreErrors) {
  const ops::OpArgs args = {{"n", 1},  {"ic", 4}, {"h", 6}, {"w", 6},
                            {"oc", 4}, {"kh", 3}, {"kw", 3}};
  ops::OpArgs missing = args;
  missing.erase("kh");
  absl::StatusOr<std::unique_ptr<DnnlConv2d>> bad = DnnlConv2d::Create(missing);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'kh'"), std::string::npos) << bad.status();
  ops::OpArgs groups = args;
  groups["groups"] = 3;
  bad = DnnlConv2d::Create(groups);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'groups'"), std::string::npos) << bad.status();
  ops::OpArgs stride = args;
  stride["stride"] = {0, 1};
  bad = DnnlConv2d::Create(stride);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'stride'"), std::string::npos) << bad.status();

  absl::StatusOr<std::unique_ptr<DnnlConv2d>> conv = DnnlConv2d::Create(args);
  ASSERT_TRUE(conv.ok()) << conv.status();
  const absl::Status shape = (*conv)->SetInputs(Random({1, 4, 6, 6}, 1), Random({4, 4, 3, 2}, 2));
  EXPECT_NE(shape.message().find("input 1 (weight)"), std::string::npos) << shape;
  const absl::Status dtype =
      (*conv)->SetInputs(NDArray::Empty({1, 4, 6, 6}, {kDLFloat, 64, 1}), Random({4, 4, 3, 3}, 2));
  EXPECT_NE(dtype.message().find("input 0 (data)"), std::string::npos) << dtype;
}

}  // namespace
}  // namespace tessel::baselines
