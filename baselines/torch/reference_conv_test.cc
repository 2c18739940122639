// conv2d, conv2d_transpose, the bit-serial and int8 operators against naive loops and
// hand-computed values.
#include <gtest/gtest.h>

#include "baselines/torch/reference.h"
#include "baselines/torch/test_util.h"

namespace tessel::baselines {
namespace {

using runtime::NDArray;
using testing::Array;
using testing::ExpectValuesNear;
using testing::Random;
using testing::RandomBits;
using testing::RunOne;

struct ConvCase {
  int64_t n, ic, h, w, oc, kh, kw;
  std::vector<int64_t> stride, pad, dilation;
  int64_t groups;

  ops::OpArgs Args() const {
    return {{"n", n},          {"ic", ic}, {"h", h},           {"w", w},     {"oc", oc},
            {"kh", kh},        {"kw", kw}, {"stride", stride}, {"pad", pad}, {"dilation", dilation},
            {"groups", groups}};
  }
  int64_t Oh() const { return (h + pad[0] + pad[2] - dilation[0] * (kh - 1) - 1) / stride[0] + 1; }
  int64_t Ow() const { return (w + pad[1] + pad[3] - dilation[1] * (kw - 1) - 1) / stride[1] + 1; }
};

// Direct definition: out[b, o, y, x] = sum over the group's channels and the kernel of
// data[b, c, y * s - pad_top + ky * d, ...] * weight[o, c - group start, ky, kx].
std::vector<float> NaiveConv(const ConvCase& c, const float* data, const float* weight) {
  const int64_t oh = c.Oh(), ow = c.Ow(), icg = c.ic / c.groups, ocg = c.oc / c.groups;
  std::vector<float> out(c.n * c.oc * oh * ow);
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t o = 0; o < c.oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = 0;
          for (int64_t i = 0; i < icg; ++i)
            for (int64_t ky = 0; ky < c.kh; ++ky)
              for (int64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t iy = y * c.stride[0] - c.pad[0] + ky * c.dilation[0];
                const int64_t ix = x * c.stride[1] - c.pad[1] + kx * c.dilation[1];
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                const int64_t channel = (o / ocg) * icg + i;
                acc += double{data[((b * c.ic + channel) * c.h + iy) * c.w + ix]} *
                       weight[((o * icg + i) * c.kh + ky) * c.kw + kx];
              }
          out[((b * c.oc + o) * oh + y) * ow + x] = static_cast<float>(acc);
        }
  return out;
}

TEST(TorchReferenceConvTest, Conv2dMatchesNaiveLoops) {
  const std::vector<ConvCase> cases = {
      {1, 3, 7, 6, 4, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
      {2, 4, 9, 8, 6, 3, 2, {2, 2}, {1, 0, 2, 1}, {1, 1}, 1},    // asymmetric padding, stride 2
      {1, 6, 8, 8, 4, 3, 3, {1, 2}, {0, 1, 1, 0}, {1, 1}, 2},    // groups
      {1, 2, 11, 10, 3, 3, 3, {1, 1}, {2, 2, 2, 2}, {2, 3}, 1},  // dilation
      {1, 5, 9, 9, 5, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 5},    // depthwise
  };
  uint32_t seed = 1;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.Args().dump());
    const NDArray data = Random({c.n, c.ic, c.h, c.w}, seed++);
    const NDArray weight = Random({c.oc, c.ic / c.groups, c.kh, c.kw}, seed++);
    ExpectValuesNear(RunOne("conv2d", c.Args(), {data, weight}), {c.n, c.oc, c.Oh(), c.Ow()},
                     NaiveConv(c, data.data<float>(), weight.data<float>()));
  }
}

TEST(TorchReferenceConvTest, Conv2dHandComputedWithDefaults) {
  // 3x3 input 1..9, 2x2 kernel [[1, 0], [0, -1]]: out = x[y][x] - x[y+1][x+1] = -4 everywhere.
  const NDArray data = Array({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const NDArray weight = Array({1, 1, 2, 2}, {1, 0, 0, -1});
  const ops::OpArgs args = {{"n", 1},  {"ic", 1}, {"h", 3}, {"w", 3},
                            {"oc", 1}, {"kh", 2}, {"kw", 2}};
  ExpectValuesNear(RunOne("conv2d", args, {data, weight}), {1, 1, 2, 2}, {-4, -4, -4, -4});
  // Padding only at the top (1) and right (1): the first output row sees a zero row above.
  ops::OpArgs padded = args;
  padded["pad"] = {1, 0, 0, 1};
  // Rows of the padded input: [0 0 0 0], [1 2 3 0], [4 5 6 0], [7 8 9 0].
  ExpectValuesNear(RunOne("conv2d", padded, {data, weight}), {1, 1, 3, 3},
                   {-2, -3, 0, -4, -4, 3, -4, -4, 6});
}

struct TransposeCase {
  int64_t n, ic, h, w, oc, kh, kw;
  std::vector<int64_t> stride, pad, output_padding;

  ops::OpArgs Args() const {
    return {{"n", n},     {"ic", ic},
            {"h", h},     {"w", w},
            {"oc", oc},   {"kh", kh},
            {"kw", kw},   {"stride", stride},
            {"pad", pad}, {"output_padding", output_padding}};
  }
  int64_t Oh() const { return (h - 1) * stride[0] - pad[0] - pad[2] + kh + output_padding[0]; }
  int64_t Ow() const { return (w - 1) * stride[1] - pad[1] - pad[3] + kw + output_padding[1]; }
};

// Scatter definition: data[b, i, iy, ix] * weight[i, o, ky, kx] lands on output row
// iy * s + ky - pad_top (when inside the output).
std::vector<float> NaiveConvTranspose(const TransposeCase& c, const float* data,
                                      const float* weight) {
  const int64_t oh = c.Oh(), ow = c.Ow();
  std::vector<double> out(c.n * c.oc * oh * ow, 0.0);
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t i = 0; i < c.ic; ++i)
      for (int64_t iy = 0; iy < c.h; ++iy)
        for (int64_t ix = 0; ix < c.w; ++ix)
          for (int64_t o = 0; o < c.oc; ++o)
            for (int64_t ky = 0; ky < c.kh; ++ky)
              for (int64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t y = iy * c.stride[0] + ky - c.pad[0];
                const int64_t x = ix * c.stride[1] + kx - c.pad[1];
                if (y < 0 || y >= oh || x < 0 || x >= ow) continue;
                out[((b * c.oc + o) * oh + y) * ow + x] +=
                    double{data[((b * c.ic + i) * c.h + iy) * c.w + ix]} *
                    weight[((i * c.oc + o) * c.kh + ky) * c.kw + kx];
              }
  return std::vector<float>(out.begin(), out.end());
}

TEST(TorchReferenceConvTest, Conv2dTransposeMatchesNaiveLoops) {
  const std::vector<TransposeCase> cases = {
      {1, 3, 4, 4, 2, 4, 4, {2, 2}, {1, 1, 1, 1}, {0, 0}},  // DCGAN's layers
      {2, 2, 3, 5, 3, 3, 3, {2, 1}, {1, 0, 0, 2}, {1, 0}},  // asymmetric pad, output_padding
      {1, 2, 3, 3, 2, 3, 2, {3, 2}, {0, 0, 0, 0}, {2, 1}},  // output_padding past the extent
  };
  uint32_t seed = 10;
  for (const TransposeCase& c : cases) {
    SCOPED_TRACE(c.Args().dump());
    const NDArray data = Random({c.n, c.ic, c.h, c.w}, seed++);
    const NDArray weight = Random({c.ic, c.oc, c.kh, c.kw}, seed++);
    ExpectValuesNear(RunOne("conv2d_transpose", c.Args(), {data, weight}),
                     {c.n, c.oc, c.Oh(), c.Ow()},
                     NaiveConvTranspose(c, data.data<float>(), weight.data<float>()));
  }
}

// Bit-serial: sums of data * weight (unipolar) or data * (2 * weight - 1) (bipolar), exact.
std::vector<int32_t> NaiveBitserialConv(const ConvCase& c, const uint8_t* data,
                                        const uint8_t* weight, bool unipolar) {
  std::vector<float> fdata(data, data + c.n * c.ic * c.h * c.w);
  std::vector<float> fweight(weight, weight + c.oc * c.ic * c.kh * c.kw);
  if (!unipolar) {
    for (float& w : fweight) w = 2 * w - 1;
  }
  const std::vector<float> out = NaiveConv(c, fdata.data(), fweight.data());
  return std::vector<int32_t>(out.begin(), out.end());
}

std::vector<int32_t> Ints(const NDArray& a) {
  const int32_t* p = a.data<int32_t>();
  return std::vector<int32_t>(p, p + a.NumElements());
}

TEST(TorchReferenceConvTest, BitserialConv2dUnipolarAndBipolar) {
  const ConvCase c = {1, 8, 6, 7, 4, 3, 3, {2, 1}, {1, 0, 1, 2}, {1, 1}, 1};
  for (const bool unipolar : {true, false}) {
    SCOPED_TRACE(unipolar ? "unipolar" : "bipolar");
    ops::OpArgs args = c.Args();
    args.erase("dilation");
    args.erase("groups");
    args["activation_bits"] = 2;
    args["weight_bits"] = unipolar ? 2 : 1;
    args["unipolar"] = unipolar;
    const NDArray data = RandomBits({c.n, c.ic, c.h, c.w}, 3, 2);
    const NDArray weight = RandomBits({c.oc, c.ic, c.kh, c.kw}, 4, unipolar ? 2 : 1);
    absl::StatusOr<std::vector<NDArray>> out =
        TorchReference("bitserial_conv2d", args, {data, weight});
    ASSERT_TRUE(out.ok()) << out.status();
    const NDArray& got = out->at(0);
    ASSERT_EQ(got.shape(), (std::vector<int64_t>{c.n, c.oc, c.Oh(), c.Ow()}));
    ASSERT_EQ(got.dtype().code, kDLInt);
    ASSERT_EQ(got.dtype().bits, 32);
    EXPECT_EQ(Ints(got),
              NaiveBitserialConv(c, data.data<uint8_t>(), weight.data<uint8_t>(), unipolar));
  }
}

TEST(TorchReferenceConvTest, Conv2dInt8KeepsTheSumsLowEightBitsByHand) {
  // 1x1 kernel over two channels, 2x1 image padded by one column on each side (zeros):
  //   out[0, 0, y, 1] = data[0, y] * w0 + data[1, y] * w1.
  NDArray data = NDArray::Empty({1, 2, 2, 1}, {kDLInt, 8, 1});
  NDArray weight = NDArray::Empty({1, 2, 1, 1}, {kDLInt, 8, 1});
  const int8_t d[] = {127, -128, 127, 3}, w[] = {127, 127};  // channel-major
  std::copy(d, d + 4, data.data<int8_t>());
  std::copy(w, w + 2, weight.data<int8_t>());
  const ops::OpArgs args = {{"n", 1},  {"ic", 2},          {"h", 2},
                            {"w", 1},  {"oc", 1},          {"kh", 1},
                            {"kw", 1}, {"stride", {1, 1}}, {"pad", {0, 1, 0, 1}}};
  absl::StatusOr<std::vector<NDArray>> out = TorchReference("conv2d_int8", args, {data, weight});
  ASSERT_TRUE(out.ok()) << out.status();
  const NDArray& got = out->at(0);
  ASSERT_EQ(got.shape(), (std::vector<int64_t>{1, 1, 2, 3}));
  ASSERT_EQ(got.dtype().bits, 8);
  // Row 0: 127 * 127 + 127 * 127 = 32258 = 0x7E02 -> 2. Row 1: -128 * 127 + 3 * 127 = -15875,
  // whose low byte is 0xFD -> -3. The padded columns are 0.
  const int8_t* g = got.data<int8_t>();
  EXPECT_EQ(std::vector<int>(g, g + 6), (std::vector<int>{0, 2, 0, 0, -3, 0}));
  // Inputs of another type are refused, naming the input.
  NDArray floats = NDArray::Empty({1, 2, 2, 1}, {kDLFloat, 32, 1});
  EXPECT_FALSE(TorchReference("conv2d_int8", args, {floats, weight}).ok());

  // Requantized: (sum + 2) >> shift, clipped; the shift rounds toward minus infinity.
  NDArray bias = NDArray::Empty({1}, {kDLInt, 32, 1});
  bias.data<int32_t>()[0] = 2;
  struct Case {
    int shift;
    bool relu;
    std::vector<int> want;
  };
  for (const Case& c : {Case{8, false, {0, 126, 0, 0, -63, 0}}, Case{8, true, {0, 126, 0, 0, 0, 0}},
                        Case{0, false, {2, 127, 2, 2, -127, 2}}}) {
    ops::OpArgs requantized = args;
    requantized["shift"] = c.shift;
    requantized["relu"] = c.relu;
    out = TorchReference("conv2d_int8", requantized, {data, weight, bias});
    ASSERT_TRUE(out.ok()) << out.status();
    const int8_t* r = out->at(0).data<int8_t>();
    EXPECT_EQ(std::vector<int>(r, r + 6), c.want) << c.shift << " " << c.relu;
  }
  ops::OpArgs relu_alone = args;
  relu_alone["relu"] = true;
  EXPECT_FALSE(TorchReference("conv2d_int8", relu_alone, {data, weight}).ok());
}

TEST(TorchReferenceConvTest, DenseInt8WrapsAndRequantizesByHand) {
  // data [[127, -128, 3]], weight rows [127, 127, 127] and [-128, -128, 1]:
  //   sum 0 = 127 * (127 - 128 + 3) = 254 = 0xFE -> -2,
  //   sum 1 = -16256 + 16384 + 3 = 131 = 0x83 -> -125 (the low byte, not a clip to 127).
  NDArray data = NDArray::Empty({1, 3}, {kDLInt, 8, 1});
  NDArray weight = NDArray::Empty({2, 3}, {kDLInt, 8, 1});
  const int8_t d[] = {127, -128, 3}, w[] = {127, 127, 127, -128, -128, 1};
  std::copy(d, d + 3, data.data<int8_t>());
  std::copy(w, w + 6, weight.data<int8_t>());
  const ops::OpArgs args = {{"m", 1}, {"n", 2}, {"k", 3}};
  absl::StatusOr<std::vector<NDArray>> out = TorchReference("dense_int8", args, {data, weight});
  ASSERT_TRUE(out.ok()) << out.status();
  const NDArray& got = out->at(0);
  ASSERT_EQ(got.shape(), (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(got.dtype().code, kDLInt);
  ASSERT_EQ(got.dtype().bits, 8);
  const int8_t* g = got.data<int8_t>();
  EXPECT_EQ(std::vector<int>(g, g + 2), (std::vector<int>{-2, -125}));

  // Requantized with bias [2, -300]: sums 256 and -169, shifted arithmetically (toward minus
  // infinity: -169 >> 8 = -1, -169 >> 1 = -85) and clipped to [-127 or 0, 127].
  NDArray bias = NDArray::Empty({2}, {kDLInt, 32, 1});
  bias.data<int32_t>()[0] = 2;
  bias.data<int32_t>()[1] = -300;
  struct Case {
    int shift;
    bool relu;
    std::vector<int> want;
  };
  for (const Case& c : {Case{8, false, {1, -1}}, Case{8, true, {1, 0}}, Case{0, false, {127, -127}},
                        Case{1, false, {127, -85}}, Case{31, false, {0, -1}}}) {
    ops::OpArgs requantized = args;
    requantized["shift"] = c.shift;
    requantized["relu"] = c.relu;
    out = TorchReference("dense_int8", requantized, {data, weight, bias});
    ASSERT_TRUE(out.ok()) << out.status();
    const int8_t* r = out->at(0).data<int8_t>();
    EXPECT_EQ(std::vector<int>(r, r + 2), c.want) << c.shift << " " << c.relu;
  }

  // Errors name the key or the input.
  auto error = [](const ops::OpArgs& a, const std::vector<NDArray>& inputs) {
    absl::StatusOr<std::vector<NDArray>> o = TorchReference("dense_int8", a, inputs);
    EXPECT_FALSE(o.ok());
    return o.ok() ? std::string() : std::string(o.status().message());
  };
  ops::OpArgs relu_alone = args;
  relu_alone["relu"] = true;
  EXPECT_NE(error(relu_alone, {data, weight}).find("'relu'"), std::string::npos);
  ops::OpArgs shift32 = args;
  shift32["shift"] = 32;
  EXPECT_NE(error(shift32, {data, weight, bias}).find("'shift'"), std::string::npos);
  ops::OpArgs shifted = args;
  shifted["shift"] = 8;
  EXPECT_NE(error(shifted, {data, weight}).find("expected 3 inputs (data, weight, bias), got 2"),
            std::string::npos);
  NDArray floats = NDArray::Empty({1, 3}, {kDLFloat, 32, 1});
  EXPECT_NE(error(args, {floats, weight}).find("input 0 (data) has dtype float32, expected int8"),
            std::string::npos);
  NDArray wide = NDArray::Empty({2, 4}, {kDLInt, 8, 1});
  EXPECT_NE(error(args, {data, wide}).find("input 1 (weight) has shape [2, 4]"), std::string::npos);
}

TEST(TorchReferenceConvTest, BitserialDenseBipolarByHand) {
  // data [[1, 2, 3]], weight rows [1, 0, 1] and [0, 0, 0]: bipolar +-1 weights.
  NDArray data = RandomBits({1, 3}, 0, 2), weight = RandomBits({2, 3}, 0, 1);
  const uint8_t d[] = {1, 2, 3}, w[] = {1, 0, 1, 0, 0, 0};
  std::copy(d, d + 3, data.data<uint8_t>());
  std::copy(w, w + 6, weight.data<uint8_t>());
  const ops::OpArgs args = {{"m", 1}, {"n", 2}, {"k", 3}, {"unipolar", false}};
  absl::StatusOr<std::vector<NDArray>> out =
      TorchReference("bitserial_dense", args, {data, weight});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Ints(out->at(0)), (std::vector<int32_t>{1 - 2 + 3, -1 - 2 - 3}));
  ops::OpArgs unipolar = args;
  unipolar["unipolar"] = true;
  out = TorchReference("bitserial_dense", unipolar, {data, weight});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Ints(out->at(0)), (std::vector<int32_t>{4, 0}));
}

}  // namespace
}  // namespace tessel::baselines
