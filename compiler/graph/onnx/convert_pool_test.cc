// MaxPool, AveragePool and the global pools against loops written here: explicit pads, auto_pad
// SAME_UPPER / SAME_LOWER, count_include_pad, ceil_mode, 1-D pools; the forms Tessel refuses
// (dilations, the Indices output, a ceil_mode window starting in the padding).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

struct PoolSpec {
  int64_t k = 2, s = 2;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  int64_t oh = 0, ow = 0;
  bool avg = false, count_include_pad = false;
};

// Square windows at (y * s - pt, x * s - pl); an average divides by the window's elements inside
// the input (or, with count_include_pad, inside the padded input).
NDArray PoolLoops(const NDArray& x, const PoolSpec& p) {
  const auto& xs = x.shape();
  const int64_t nc = xs[0] * xs[1], h = xs[2], w = xs[3];
  NDArray out = Floats({xs[0], xs[1], p.oh, p.ow}, std::vector<float>(nc * p.oh * p.ow));
  for (int64_t i = 0; i < nc; ++i)
    for (int64_t y = 0; y < p.oh; ++y)
      for (int64_t xx = 0; xx < p.ow; ++xx) {
        double acc = p.avg ? 0.0 : -std::numeric_limits<double>::infinity();
        int64_t count = 0;
        for (int64_t ky = 0; ky < p.k; ++ky)
          for (int64_t kx = 0; kx < p.k; ++kx) {
            const int64_t iy = y * p.s - p.pt + ky, ix = xx * p.s - p.pl + kx;
            const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
            const bool in_padded = iy >= -p.pt && iy < h + p.pb && ix >= -p.pl && ix < w + p.pr;
            if (p.count_include_pad ? in_padded : inside) ++count;
            if (!inside) continue;
            const double v = x.data<float>()[(i * h + iy) * w + ix];
            acc = p.avg ? acc + v : std::max(acc, v);
          }
        out.data<float>()[(i * p.oh + y) * p.ow + xx] =
            static_cast<float>(p.avg ? acc / count : acc);
      }
  return out;
}

::onnx::ModelProto PoolModel(const std::string& op, const std::vector<int64_t>& in,
                             std::function<void(::onnx::NodeProto&)> attrs) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", in);
  attrs(AddNode(m, op, {"x"}, {"y"}, "pool"));
  AddOutput(m, "y", static_cast<int>(in.size()));
  return m;
}

TEST(ConvertPoolTest, MaxPoolWithPads) {
  const NDArray x = Random({2, 3, 7, 6}, 1);
  auto m = PoolModel("MaxPool", {2, 3, 7, 6}, [](::onnx::NodeProto& n) {
    SetAttr(n, "kernel_shape", std::vector<int64_t>{3, 3});
    SetAttr(n, "strides", std::vector<int64_t>{2, 2});
    SetAttr(n, "pads", std::vector<int64_t>{1, 0, 1, 2});
  });
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  const PoolSpec p{.k = 3, .s = 2, .pt = 1, .pl = 0, .pb = 1, .pr = 2, .oh = 4, .ow = 3};
  EXPECT_EQ(MaxError((*y)[0], PoolLoops(x, p)), 0);
}

TEST(ConvertPoolTest, AveragePoolAutoPadSame) {
  // 7 x 7, k 2, stride 2: output 4 x 4, one row and column of padding, at the end (UPPER) or the
  // start (LOWER); the padding does not count.
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER"}) {
    const NDArray x = Random({1, 2, 7, 7}, 2);
    auto m = PoolModel("AveragePool", {1, 2, 7, 7}, [&](::onnx::NodeProto& n) {
      SetAttr(n, "kernel_shape", std::vector<int64_t>{2, 2});
      SetAttr(n, "strides", std::vector<int64_t>{2, 2});
      SetAttr(n, "auto_pad", mode);
    });
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    PoolSpec p{.k = 2, .s = 2, .oh = 4, .ow = 4, .avg = true};
    if (mode == "SAME_UPPER") {
      p.pb = p.pr = 1;
    } else {
      p.pt = p.pl = 1;
    }
    EXPECT_LT(MaxError((*y)[0], PoolLoops(x, p)), 1e-6) << mode;
  }
}

TEST(ConvertPoolTest, AveragePoolCountIncludePad) {
  const NDArray x = Random({1, 2, 5, 5}, 3);
  auto m = PoolModel("AveragePool", {1, 2, 5, 5}, [](::onnx::NodeProto& n) {
    SetAttr(n, "kernel_shape", std::vector<int64_t>{3, 3});
    SetAttr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
    SetAttr(n, "count_include_pad", int64_t{1});
  });
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  const PoolSpec p{.k = 3, .s = 1, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .oh = 5, .ow = 5,
                   .avg = true, .count_include_pad = true};
  EXPECT_LT(MaxError((*y)[0], PoolLoops(x, p)), 1e-6);
}

TEST(ConvertPoolTest, CeilModeAddsAWindowPastTheInput) {
  // 6 x 6, k 3, stride 2: floor gives 2, ceil 3; the last window starts at 4 (inside) and
  // overhangs by one.
  const NDArray x = Random({1, 1, 6, 6}, 4);
  auto m = PoolModel("MaxPool", {1, 1, 6, 6}, [](::onnx::NodeProto& n) {
    SetAttr(n, "kernel_shape", std::vector<int64_t>{3, 3});
    SetAttr(n, "strides", std::vector<int64_t>{2, 2});
    SetAttr(n, "ceil_mode", int64_t{1});
  });
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  const PoolSpec p{.k = 3, .s = 2, .oh = 3, .ow = 3};
  EXPECT_EQ(MaxError((*y)[0], PoolLoops(x, p)), 0);
}

TEST(ConvertPoolTest, MaxPool1d) {
  const NDArray x = Random({2, 3, 9}, 5);
  auto m = PoolModel("MaxPool", {2, 3, 9}, [](::onnx::NodeProto& n) {
    SetAttr(n, "kernel_shape", std::vector<int64_t>{3});
    SetAttr(n, "strides", std::vector<int64_t>{2});
    SetAttr(n, "pads", std::vector<int64_t>{1, 1});
  });
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  // Each of the 6 rows: windows of 3 at o * 2 - 1.
  std::vector<float> want;
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t o = 0; o < 5; ++o) {
      float best = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < 3; ++k) {
        const int64_t i = o * 2 - 1 + k;
        if (i >= 0 && i < 9) best = std::max(best, x.data<float>()[r * 9 + i]);
      }
      want.push_back(best);
    }
  EXPECT_EQ(MaxError((*y)[0], Floats({2, 3, 5}, want)), 0);
}

TEST(ConvertPoolTest, GlobalPoolsOverAnyNumberOfSpatialAxes) {
  const NDArray x = Random({2, 3, 2, 3, 4}, 6);
  for (const std::string op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    auto m = PoolModel(op, {2, 3, 2, 3, 4}, [](::onnx::NodeProto&) {});
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<float> want;
    for (int64_t i = 0; i < 6; ++i) {
      double acc = op == "GlobalAveragePool" ? 0 : -1e30;
      for (int64_t k = 0; k < 24; ++k) {
        const double v = x.data<float>()[i * 24 + k];
        acc = op == "GlobalAveragePool" ? acc + v / 24 : std::max(acc, v);
      }
      want.push_back(static_cast<float>(acc));
    }
    EXPECT_LT(MaxError((*y)[0], Floats({2, 3, 1, 1, 1}, want)), 1e-6) << op;
  }
}

TEST(ConvertPoolTest, RefusedFormsNameWhatIsUnsupported) {
  struct Case {
    std::function<void(::onnx::NodeProto&)> attrs;
    std::vector<int64_t> in;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](::onnx::NodeProto& n) {
         SetAttr(n, "kernel_shape", std::vector<int64_t>{2, 2});
         SetAttr(n, "dilations", std::vector<int64_t>{2, 2});
       },
       {1, 1, 8, 8},
       "unsupported ONNX operator 'MaxPool' (node 'pool' in test.onnx): attribute 'dilations' "
       "[2, 2]"},
      {[](::onnx::NodeProto& n) {
         // 5 + 2 padding, k 2, stride 2: ONNX's ceil gives 4 windows, the last starting in the
         // end padding.
         SetAttr(n, "kernel_shape", std::vector<int64_t>{2, 2});
         SetAttr(n, "strides", std::vector<int64_t>{2, 2});
         SetAttr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
         SetAttr(n, "ceil_mode", int64_t{1});
       },
       {1, 1, 5, 5},
       "unsupported ONNX operator 'MaxPool' (node 'pool' in test.onnx): attribute 'ceil_mode' 1 "
       "where a last window starts in the padding"},
      {[](::onnx::NodeProto& n) { SetAttr(n, "kernel_shape", std::vector<int64_t>{2, 2, 2}); },
       {1, 1, 4, 4, 4},
       "unsupported ONNX operator 'MaxPool' (node 'pool' in test.onnx): 3-D pooling"},
  };
  for (const Case& c : cases) {
    auto m = PoolModel("MaxPool", c.in, c.attrs);
    absl::StatusOr<Graph> g = Import(m);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented) << g.status();
    EXPECT_THAT(std::string(g.status().message()), HasSubstr(c.message));
  }
  // The Indices output.
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {1, 1, 4, 4});
  SetAttr(AddNode(m, "MaxPool", {"x"}, {"y", "i"}, "pool"), "kernel_shape",
          std::vector<int64_t>{2, 2});
  AddOutput(m, "y", 4);
  AddOutput(m, "i", 4, ::onnx::TensorProto::INT64);
  EXPECT_THAT(std::string(Import(m).status().message()),
              HasSubstr("unsupported ONNX operator 'MaxPool' (node 'pool' in test.onnx): output "
                        "'Indices'"));
}

}  // namespace
}  // namespace tessel::graph::onnx
