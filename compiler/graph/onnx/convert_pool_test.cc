// MaxPool, AveragePool and the global pools against loops written here: explicit pads, auto_pad
// SAME_UPPER / SAME_LOWER, count_include_pad, ceil_mode, 1-D and 3-D pools, max pools with
// dilations; the forms Tessel refuses (the Indices output, a ceil_mode window starting in the
// padding, 4-D pools).
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

// One spatial axis of a pooling: kernel, stride, dilation, pads, output extent.
struct PoolAxis {
  int64_t in, k, s = 1, d = 1, pb = 0, pe = 0, out = 0;
};

// A pooling over three spatial axes (a 1-D or 2-D one has leading axes of extent and kernel 1):
// windows at o * s - pb + j * d; an average divides by the window's elements inside the input,
// or with count_include_pad inside the padded input, clipped to it.
NDArray PoolNdLoops(const NDArray& x, const PoolAxis (&a)[3], bool avg, bool count_include_pad,
                    const std::vector<int64_t>& out_shape) {
  const int64_t nc = x.shape()[0] * x.shape()[1];
  std::vector<float> out;
  for (int64_t i = 0; i < nc; ++i)
    for (int64_t z = 0; z < a[0].out; ++z)
      for (int64_t y = 0; y < a[1].out; ++y)
        for (int64_t xx = 0; xx < a[2].out; ++xx) {
          double acc = avg ? 0.0 : -std::numeric_limits<double>::infinity();
          int64_t count = 0;
          const int64_t o[3] = {z, y, xx};
          for (int64_t j0 = 0; j0 < a[0].k; ++j0)
            for (int64_t j1 = 0; j1 < a[1].k; ++j1)
              for (int64_t j2 = 0; j2 < a[2].k; ++j2) {
                const int64_t j[3] = {j0, j1, j2};
                int64_t at[3];
                bool inside = true, in_padded = true;
                for (int d = 0; d < 3; ++d) {
                  at[d] = o[d] * a[d].s - a[d].pb + j[d] * a[d].d;
                  inside = inside && at[d] >= 0 && at[d] < a[d].in;
                  in_padded = in_padded && at[d] >= -a[d].pb && at[d] < a[d].in + a[d].pe;
                }
                if (count_include_pad ? in_padded : inside) ++count;
                if (!inside) continue;
                const double v =
                    x.data<float>()[((i * a[0].in + at[0]) * a[1].in + at[1]) * a[2].in + at[2]];
                acc = avg ? acc + v : std::max(acc, v);
              }
          out.push_back(static_cast<float>(avg ? acc / count : acc));
        }
  return Floats(out_shape, out);
}

TEST(ConvertPoolTest, Pool3dMaxAndAverageWithPadsStridesAndCeilMode) {
  const NDArray x = Random({2, 3, 7, 7, 5}, 21);
  struct Case {
    std::string op;
    bool ceil, count_include_pad;
  };
  for (const Case& c : {Case{"MaxPool", false, false}, Case{"MaxPool", true, false},
                        Case{"AveragePool", false, false}, Case{"AveragePool", false, true},
                        Case{"AveragePool", true, false}}) {
    // Depth: k 3, s 2, pads 1 / 1; height: k 2, s 2, no pads; width: k 3, s 1, pads 1 / 0.
    // ceil_mode adds a window (reaching past the input) on height (7 - 2 = 5, odd) only.
    PoolAxis axes[3] = {{.in = 7, .k = 3, .s = 2, .pb = 1, .pe = 1, .out = 4},
                        {.in = 7, .k = 2, .s = 2, .pb = 0, .pe = 0, .out = c.ceil ? 4 : 3},
                        {.in = 5, .k = 3, .s = 1, .pb = 1, .pe = 0, .out = 4}};
    auto m = PoolModel(c.op, {2, 3, 7, 7, 5}, [&](::onnx::NodeProto& n) {
      SetAttr(n, "kernel_shape", std::vector<int64_t>{3, 2, 3});
      SetAttr(n, "strides", std::vector<int64_t>{2, 2, 1});
      SetAttr(n, "pads", std::vector<int64_t>{1, 0, 1, 1, 0, 0});
      if (c.ceil) SetAttr(n, "ceil_mode", int64_t{1});
      if (c.count_include_pad) SetAttr(n, "count_include_pad", int64_t{1});
    });
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    const NDArray want =
        PoolNdLoops(x, axes, c.op == "AveragePool", c.count_include_pad, {2, 3, 4, axes[1].out, 4});
    EXPECT_LT(MaxError((*y)[0], want), 1e-6) << c.op << " ceil " << c.ceil;
  }
}

TEST(ConvertPoolTest, MaxPoolWithDilationsIn1d2dAnd3d) {
  {
    const NDArray x = Random({2, 3, 20}, 22);
    const PoolAxis axes[3] = {{.in = 1, .k = 1, .out = 1},
                              {.in = 1, .k = 1, .out = 1},
                              {.in = 20, .k = 3, .s = 2, .d = 4, .pb = 2, .pe = 2, .out = 8}};
    auto m = PoolModel("MaxPool", {2, 3, 20}, [](::onnx::NodeProto& n) {
      SetAttr(n, "kernel_shape", std::vector<int64_t>{3});
      SetAttr(n, "strides", std::vector<int64_t>{2});
      SetAttr(n, "dilations", std::vector<int64_t>{4});
      SetAttr(n, "pads", std::vector<int64_t>{2, 2});
    });
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(MaxError((*y)[0], PoolNdLoops(x, axes, false, false, {2, 3, 8})), 0);
  }
  {
    // ceil_mode: height (9 + 1 - 5) / 2 and width (8 - 4) / 3 round up to one more window each,
    // reaching past the input.
    const NDArray x = Random({1, 2, 9, 8}, 23);
    const PoolAxis axes[3] = {{.in = 1, .k = 1, .out = 1},
                              {.in = 9, .k = 3, .s = 2, .d = 2, .pb = 1, .pe = 0, .out = 4},
                              {.in = 8, .k = 2, .s = 3, .d = 3, .pb = 0, .pe = 0, .out = 3}};
    auto m = PoolModel("MaxPool", {1, 2, 9, 8}, [](::onnx::NodeProto& n) {
      SetAttr(n, "kernel_shape", std::vector<int64_t>{3, 2});
      SetAttr(n, "strides", std::vector<int64_t>{2, 3});
      SetAttr(n, "dilations", std::vector<int64_t>{2, 3});
      SetAttr(n, "pads", std::vector<int64_t>{1, 0, 0, 0});
      SetAttr(n, "ceil_mode", int64_t{1});
    });
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(MaxError((*y)[0], PoolNdLoops(x, axes, false, false, {1, 2, 4, 3})), 0);
  }
  {
    const NDArray x = Random({1, 2, 5, 6, 4}, 24);
    const PoolAxis axes[3] = {{.in = 5, .k = 2, .s = 1, .d = 2, .out = 3},
                              {.in = 6, .k = 2, .s = 2, .d = 1, .out = 3},
                              {.in = 4, .k = 2, .s = 1, .d = 3, .out = 1}};
    auto m = PoolModel("MaxPool", {1, 2, 5, 6, 4}, [](::onnx::NodeProto& n) {
      SetAttr(n, "kernel_shape", std::vector<int64_t>{2, 2, 2});
      SetAttr(n, "strides", std::vector<int64_t>{1, 2, 1});
      SetAttr(n, "dilations", std::vector<int64_t>{2, 1, 3});
    });
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(MaxError((*y)[0], PoolNdLoops(x, axes, false, false, {1, 2, 3, 3, 1})), 0);
  }
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
  const PoolSpec p{.k = 3,
                   .s = 1,
                   .pt = 1,
                   .pl = 1,
                   .pb = 1,
                   .pr = 1,
                   .oh = 5,
                   .ow = 5,
                   .avg = true,
                   .count_include_pad = true};
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
      {[](::onnx::NodeProto& n) {
         SetAttr(n, "kernel_shape", std::vector<int64_t>{2, 2, 2, 2});
       },
       {1, 1, 3, 3, 3, 3},
       "unsupported ONNX operator 'MaxPool' (node 'pool' in test.onnx): 4-D pooling"},
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
