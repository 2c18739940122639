// Conv and ConvTranspose against loops written here: 2-D with groups, dilation and bias, 1-D
// through the height-1 reshape, auto_pad SAME_UPPER / SAME_LOWER, ConvTranspose with
// output_padding and output_shape, 3-D with groups, strides, dilations, pads and bias; 3-D and
// grouped transposed convolutions are unsupported.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

struct ConvSpec {
  int64_t n, c, h, w, oc, kh, kw;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, groups = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
};

// Direct convolution: out[n][o][y][x] = b[o] + sum w[o][i][ky][kx] * in[n][g*icg+i][...].
NDArray ConvLoops(const ConvSpec& s, const NDArray& x, const NDArray& w, const NDArray* b) {
  const int64_t oh = (s.h + s.pt + s.pb - s.dh * (s.kh - 1) - 1) / s.sh + 1;
  const int64_t ow = (s.w + s.pl + s.pr - s.dw * (s.kw - 1) - 1) / s.sw + 1;
  NDArray out = Floats({s.n, s.oc, oh, ow}, std::vector<float>(s.n * s.oc * oh * ow));
  const int64_t icg = s.c / s.groups, ocg = s.oc / s.groups;
  const float* X = x.data<float>();
  const float* W = w.data<float>();
  float* O = out.data<float>();
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = b ? b->data<float>()[o] : 0.0;
          const int64_t g = o / ocg;
          for (int64_t i = 0; i < icg; ++i)
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                const int64_t iy = y * s.sh - s.pt + ky * s.dh, ix = xx * s.sw - s.pl + kx * s.dw;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                acc += X[((n * s.c + g * icg + i) * s.h + iy) * s.w + ix] *
                       W[((o * icg + i) * s.kh + ky) * s.kw + kx];
              }
          O[((n * s.oc + o) * oh + y) * ow + xx] = static_cast<float>(acc);
        }
  return out;
}

TEST(ConvertConvTest, Conv2dWithGroupsDilationAndBias) {
  const ConvSpec s{.n = 2,
                   .c = 4,
                   .h = 9,
                   .w = 8,
                   .oc = 6,
                   .kh = 3,
                   .kw = 2,
                   .sh = 2,
                   .sw = 1,
                   .dh = 2,
                   .dw = 1,
                   .groups = 2,
                   .pt = 1,
                   .pl = 0,
                   .pb = 2,
                   .pr = 1};
  const NDArray x = Random({2, 4, 9, 8}, 1), w = Random({6, 2, 3, 2}, 2), b = Random({6}, 3);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 4, 9, 8});
  AddInitializer(m, "w", w);
  AddInitializer(m, "b", b);
  auto& conv = AddNode(m, "Conv", {"x", "w", "b"}, {"y"}, "conv1");
  SetAttr(conv, "strides", std::vector<int64_t>{2, 1});
  SetAttr(conv, "dilations", std::vector<int64_t>{2, 1});
  SetAttr(conv, "pads", std::vector<int64_t>{1, 0, 2, 1});
  SetAttr(conv, "group", int64_t{2});
  AddOutput(m, "y", 4);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(ToText(*g), HasSubstr("%conv1 = conv2d(%x, %w)"));
  EXPECT_THAT(ToText(*g), HasSubstr("add(%conv1, %conv1/bias)"));
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_LT(MaxError((*y)[0], ConvLoops(s, x, w, &b)), 1e-5);
}

// One spatial axis of a 3-D convolution: kernel, stride, dilation, pads.
struct Axis3d {
  int64_t in, k, s = 1, d = 1, pb = 0, pe = 0;
  int64_t out() const { return (in + pb + pe - d * (k - 1) - 1) / s + 1; }
};

// out[n][o][z][y][x] = b[o] + sum w[o][i][kz][ky][kx] * in[n][g*icg+i][z*s-pb+kz*d]...
NDArray Conv3dLoops(int64_t n, int64_t c, int64_t oc, int64_t groups, const Axis3d (&a)[3],
                    const NDArray& x, const NDArray& w, const NDArray* b) {
  const int64_t od = a[0].out(), oh = a[1].out(), ow = a[2].out();
  NDArray out = Floats({n, oc, od, oh, ow}, std::vector<float>(n * oc * od * oh * ow));
  const int64_t icg = c / groups, ocg = oc / groups;
  const float* X = x.data<float>();
  const float* W = w.data<float>();
  float* O = out.data<float>();
  int64_t at = 0;
  for (int64_t nn = 0; nn < n; ++nn)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t z = 0; z < od; ++z)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t xx = 0; xx < ow; ++xx) {
            double acc = b ? b->data<float>()[o] : 0.0;
            for (int64_t i = 0; i < icg; ++i)
              for (int64_t kz = 0; kz < a[0].k; ++kz)
                for (int64_t ky = 0; ky < a[1].k; ++ky)
                  for (int64_t kx = 0; kx < a[2].k; ++kx) {
                    const int64_t iz = z * a[0].s - a[0].pb + kz * a[0].d;
                    const int64_t iy = y * a[1].s - a[1].pb + ky * a[1].d;
                    const int64_t ix = xx * a[2].s - a[2].pb + kx * a[2].d;
                    if (iz < 0 || iz >= a[0].in || iy < 0 || iy >= a[1].in || ix < 0 ||
                        ix >= a[2].in) {
                      continue;
                    }
                    const int64_t ci = o / ocg * icg + i;
                    acc += X[(((nn * c + ci) * a[0].in + iz) * a[1].in + iy) * a[2].in + ix] *
                           W[(((o * icg + i) * a[0].k + kz) * a[1].k + ky) * a[2].k + kx];
                  }
            O[at++] = static_cast<float>(acc);
          }
  return out;
}

TEST(ConvertConvTest, Conv3dWithGroupsStridesDilationsPadsAndBias) {
  const Axis3d axes[3] = {{.in = 7, .k = 3, .s = 2, .d = 1, .pb = 1, .pe = 2},
                          {.in = 6, .k = 2, .s = 1, .d = 2, .pb = 0, .pe = 1},
                          {.in = 5, .k = 3, .s = 2, .d = 1, .pb = 1, .pe = 1}};
  const NDArray x = Random({2, 4, 7, 6, 5}, 11), w = Random({6, 2, 3, 2, 3}, 12),
                b = Random({6}, 13);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 4, 7, 6, 5});
  AddInitializer(m, "w", w);
  AddInitializer(m, "b", b);
  auto& conv = AddNode(m, "Conv", {"x", "w", "b"}, {"y"}, "conv3d");
  SetAttr(conv, "strides", std::vector<int64_t>{2, 1, 2});
  SetAttr(conv, "dilations", std::vector<int64_t>{1, 2, 1});
  SetAttr(conv, "pads", std::vector<int64_t>{1, 0, 1, 2, 1, 1});
  SetAttr(conv, "group", int64_t{2});
  AddOutput(m, "y", 5);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_LT(MaxError((*y)[0], Conv3dLoops(2, 4, 6, 2, axes, x, w, &b)), 1e-5);
}

TEST(ConvertConvTest, Conv3dWithAComputedWeight) {
  const Axis3d axes[3] = {{.in = 4, .k = 2}, {.in = 3, .k = 1}, {.in = 5, .k = 3}};
  const NDArray x = Random({1, 3, 4, 3, 5}, 14), w = Random({2, 3, 2, 1, 3}, 15);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {1, 3, 4, 3, 5});
  AddInput(m, "w", {2, 3, 2, 1, 3});
  AddNode(m, "Conv", {"x", "w"}, {"y"}, "conv3d");
  AddOutput(m, "y", 5);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x, w});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_LT(MaxError((*y)[0], Conv3dLoops(1, 3, 2, 1, axes, x, w, nullptr)), 1e-5);
}

TEST(ConvertConvTest, Conv1dIsAConv2dOfHeightOne) {
  const ConvSpec s{.n = 2,
                   .c = 4,
                   .h = 1,
                   .w = 11,
                   .oc = 5,
                   .kh = 1,
                   .kw = 3,
                   .sh = 1,
                   .sw = 2,
                   .dh = 1,
                   .dw = 2,
                   .groups = 1,
                   .pt = 0,
                   .pl = 2,
                   .pb = 0,
                   .pr = 1};
  const NDArray x = Random({2, 4, 11}, 4), w = Random({5, 4, 3}, 5), b = Random({5}, 6);
  ::onnx::ModelProto m = NewModel(11);
  AddInput(m, "x", {2, 4, 11});
  AddInitializer(m, "w", w);
  AddInitializer(m, "b", b);
  auto& conv = AddNode(m, "Conv", {"x", "w", "b"}, {"y"});
  SetAttr(conv, "strides", std::vector<int64_t>{2});
  SetAttr(conv, "dilations", std::vector<int64_t>{2});
  SetAttr(conv, "pads", std::vector<int64_t>{2, 1});
  AddOutput(m, "y", 3);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  NDArray x4 = Floats({2, 4, 1, 11}, Values(x)), w4 = Floats({5, 4, 1, 3}, Values(w));
  const NDArray want = ConvLoops(s, x4, w4, &b);
  ASSERT_EQ((*y)[0].shape(), (std::vector<int64_t>{2, 5, 5}));
  EXPECT_LT(MaxError((*y)[0], Floats({2, 5, 5}, Values(want))), 1e-5);
}

TEST(ConvertConvTest, AutoPadSameUpperAndLower) {
  // W = 8, k = 3, stride 2: output 4, total padding 1, at the end (UPPER) or start (LOWER).
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER"}) {
    const NDArray x = Random({1, 2, 8, 8}, 7), w = Random({3, 2, 3, 3}, 8);
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {1, 2, 8, 8});
    AddInitializer(m, "w", w);
    auto& conv = AddNode(m, "Conv", {"x", "w"}, {"y"});
    SetAttr(conv, "strides", std::vector<int64_t>{2, 2});
    SetAttr(conv, "auto_pad", mode);
    AddOutput(m, "y", 4);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    ConvSpec s{.n = 1, .c = 2, .h = 8, .w = 8, .oc = 3, .kh = 3, .kw = 3, .sh = 2, .sw = 2};
    if (mode == "SAME_UPPER") {
      s.pb = s.pr = 1;
    } else {
      s.pt = s.pl = 1;
    }
    EXPECT_LT(MaxError((*y)[0], ConvLoops(s, x, w, nullptr)), 1e-5) << mode;
  }
}

// out[n][o][y][x] += in[n][i][iy][ix] * w[i][o][ky][kx] at y = iy * s - pad_top + ky.
NDArray ConvTransposeLoops(const NDArray& x, const NDArray& w, int64_t stride, int64_t pad_begin,
                           int64_t oh, int64_t ow) {
  const auto& xs = x.shape();
  const auto& ws = w.shape();
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], oc = ws[1], k = ws[2];
  NDArray out = Floats({n, oc, oh, ow}, std::vector<float>(n * oc * oh * ow, 0.0f));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < c; ++i)
      for (int64_t iy = 0; iy < h; ++iy)
        for (int64_t ix = 0; ix < wd; ++ix)
          for (int64_t o = 0; o < oc; ++o)
            for (int64_t ky = 0; ky < k; ++ky)
              for (int64_t kx = 0; kx < k; ++kx) {
                const int64_t y = iy * stride - pad_begin + ky, xx = ix * stride - pad_begin + kx;
                if (y < 0 || y >= oh || xx < 0 || xx >= ow) continue;
                out.data<float>()[((b * oc + o) * oh + y) * ow + xx] +=
                    x.data<float>()[((b * c + i) * h + iy) * wd + ix] *
                    w.data<float>()[((i * oc + o) * k + ky) * k + kx];
              }
  return out;
}

TEST(ConvertConvTest, ConvTransposeWithOutputPaddingAndBias) {
  const NDArray x = Random({1, 3, 4, 5}, 9), w = Random({3, 2, 3, 3}, 10), b = Random({2}, 11);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {1, 3, 4, 5});
  AddInitializer(m, "w", w);
  AddInitializer(m, "b", b);
  auto& node = AddNode(m, "ConvTranspose", {"x", "w", "b"}, {"y"});
  SetAttr(node, "strides", std::vector<int64_t>{2, 2});
  SetAttr(node, "pads", std::vector<int64_t>{1, 1, 1, 1});
  SetAttr(node, "output_padding", std::vector<int64_t>{1, 1});
  AddOutput(m, "y", 4);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  // (4 - 1) * 2 - 2 + 3 + 1 = 8 rows, (5 - 1) * 2 - 2 + 3 + 1 = 10 columns.
  NDArray want = ConvTransposeLoops(x, w, 2, 1, 8, 10);
  for (int64_t o = 0; o < 2; ++o)
    for (int64_t i = 0; i < 80; ++i) want.data<float>()[o * 80 + i] += b.data<float>()[o];
  EXPECT_LT(MaxError((*y)[0], want), 1e-5);
}

TEST(ConvertConvTest, ConvTransposeOutputShapeSetsThePadding) {
  // output_shape 8 x 8 from 4 x 4, stride 2, k 3: total padding 2 * 3 + 3 - 8 = 1 per axis, at
  // the start without auto_pad (ONNX puts the larger half first unless SAME_UPPER).
  const NDArray x = Random({1, 2, 4, 4}, 12), w = Random({2, 3, 3, 3}, 13);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {1, 2, 4, 4});
  AddInitializer(m, "w", w);
  auto& node = AddNode(m, "ConvTranspose", {"x", "w"}, {"y"});
  SetAttr(node, "strides", std::vector<int64_t>{2, 2});
  SetAttr(node, "output_shape", std::vector<int64_t>{8, 8});
  AddOutput(m, "y", 4);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_LT(MaxError((*y)[0], ConvTransposeLoops(x, w, 2, 1, 8, 8)), 1e-5);
}

TEST(ConvertConvTest, UnsupportedFormsNameTheOperatorAndWhat) {
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {1, 2, 4, 4, 4});
    AddInitializer(m, "w", Random({2, 3, 2, 2, 2}, 1));
    AddNode(m, "ConvTranspose", {"x", "w"}, {"y"}, "up3d");
    AddOutput(m, "y", 5);
    absl::StatusOr<Graph> g = Import(m);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("unsupported ONNX operator 'ConvTranspose' (node 'up3d' in test.onnx): "
                          "3-D transposed convolution"));
  }
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {1, 2, 3, 3, 3, 3});
    AddInitializer(m, "w", Random({2, 2, 2, 2, 2, 2}, 1));
    AddNode(m, "Conv", {"x", "w"}, {"y"}, "conv4d");
    AddOutput(m, "y", 6);
    absl::StatusOr<Graph> g = Import(m);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("unsupported ONNX operator 'Conv' (node 'conv4d' in test.onnx): "
                          "4-D convolution"));
  }
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {1, 2, 4, 4});
    AddInitializer(m, "w", Random({2, 2, 3, 3}, 1));
    auto& node = AddNode(m, "ConvTranspose", {"x", "w"}, {"y"}, "up");
    SetAttr(node, "group", int64_t{2});
    AddOutput(m, "y", 4);
    absl::StatusOr<Graph> g = Import(m);
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("unsupported ONNX operator 'ConvTranspose' (node 'up' in test.onnx): "
                          "attribute 'group' 2"));
  }
}

}  // namespace
}  // namespace tessel::graph::onnx
