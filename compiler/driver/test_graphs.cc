#include "compiler/driver/test_graphs.h"

#include <cmath>
#include <random>
#include <string>

#include "compiler/graph/builder.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/support/check.h"
#include "compiler/support/uniform_real.h"

namespace tessel::driver::testing {
namespace {

using graph::Builder;
using graph::kFloat32;
using graph::ValueId;
using nlohmann::json;

constexpr DLDataType kUInt8{kDLUInt, 8, 1};
constexpr DLDataType kInt32{kDLInt, 32, 1};

// Constants and inputs drawn from one seed sequence, so each graph is the same on every run.
class Draws {
 public:
  runtime::NDArray Next(const std::vector<int64_t>& shape, double low = -1, double high = 1,
                        DLDataType dtype = kFloat32) {
    return RandomArray(shape, dtype, low, high, seed_++);
  }

 private:
  uint32_t seed_ = 1;
};

absl::StatusOr<TestGraph> Finish(Builder& b, std::vector<runtime::NDArray> inputs) {
  absl::StatusOr<graph::Graph> g = b.Finish();
  if (!g.ok()) return g.status();
  return TestGraph{*std::move(g), std::move(inputs)};
}

// SmallResNet's pieces: a convolution weight drawn for its fan-in, a convolution with a batch norm,
// a basic block.
ValueId ResNetWeight(Builder& b, const std::string& name, std::vector<int64_t> shape,
                     uint32_t seed) {
  const double fan_in = static_cast<double>(shape[1] * shape[2] * shape[3]);
  const double bound = std::sqrt(6.0 / fan_in);
  return b.Constant(name, RandomArray(shape, kFloat32, -bound, bound, seed));
}

ValueId ConvBn(Builder& b, ValueId x, int64_t ic, int64_t oc, int64_t k, int64_t stride,
               const std::string& name, uint32_t seed) {
  const int64_t pad = k / 2;
  ValueId y = b.Op("conv2d", {x, ResNetWeight(b, name + ".weight", {oc, ic, k, k}, seed)},
                   {{"stride", {stride, stride}}, {"pad", {pad, pad, pad, pad}}}, name);
  auto channel = [&](const std::string& what, double low, double high, uint32_t s) {
    return b.Constant(name + ".bn." + what, RandomArray({oc}, kFloat32, low, high, s));
  };
  const std::vector<ValueId> inputs = {
      y, channel("gamma", 0.5, 1.0, seed + 1), channel("beta", -0.1, 0.1, seed + 2),
      channel("mean", -0.1, 0.1, seed + 3), channel("var", 0.5, 1.5, seed + 4)};
  return b.Op("batch_norm", inputs, json::object(), name + ".bn");
}

ValueId BasicBlock(Builder& b, ValueId x, int64_t ic, int64_t oc, int64_t stride,
                   const std::string& name, uint32_t seed) {
  ValueId y = b.Op("relu", {ConvBn(b, x, ic, oc, 3, stride, name + ".conv1", seed)});
  y = ConvBn(b, y, oc, oc, 3, 1, name + ".conv2", seed + 10);
  const ValueId skip =
      stride == 1 ? x : ConvBn(b, x, ic, oc, 1, stride, name + ".downsample", seed + 20);
  return b.Op("relu", {b.Op("add", {y, skip})});
}

}  // namespace

runtime::NDArray RandomArray(const std::vector<int64_t>& shape, DLDataType dtype, double low,
                             double high, uint32_t seed) {
  std::mt19937 rng(seed);
  runtime::NDArray a = runtime::NDArray::Empty(shape, dtype);
  if (dtype.code == kDLFloat && dtype.bits == 32) {
    UniformReal<float> dist(static_cast<float>(low), static_cast<float>(high));
    for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = dist(rng);
  } else if (dtype.code == kDLUInt && dtype.bits == 8) {
    std::uniform_int_distribution<int> dist(static_cast<int>(low), static_cast<int>(high) - 1);
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      a.data<uint8_t>()[i] = static_cast<uint8_t>(dist(rng));
    }
  } else if (dtype.code == kDLInt && dtype.bits == 32) {
    std::uniform_int_distribution<int32_t> dist(static_cast<int32_t>(low),
                                                static_cast<int32_t>(high) - 1);
    for (int64_t i = 0; i < a.NumElements(); ++i) a.data<int32_t>()[i] = dist(rng);
  } else if (dtype.code == kDLInt && dtype.bits == 8) {
    std::uniform_int_distribution<int> dist(static_cast<int>(low), static_cast<int>(high) - 1);
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      a.data<int8_t>()[i] = static_cast<int8_t>(dist(rng));
    }
  } else {
    TESSEL_UNREACHABLE() << "RandomArray: float32, int32, int8 and uint8 only";
  }
  return a;
}

absl::StatusOr<TestGraph> ConvolutionGraph() {
  Draws d;
  Builder b;
  runtime::NDArray xv = d.Next({1, 64, 8, 8});
  ValueId x = b.Input("x", {{1, 64, 8, 8}});
  // Winograd (3x3, stride 1, 64 channels), twice on the same weight: one task, one kernel.
  ValueId w3 = b.Constant("w3", d.Next({64, 64, 3, 3}, -0.05, 0.05));
  ValueId y1 = b.Op("conv2d", {x, w3}, {{"pad", {1, 1, 1, 1}}}, "winograd_a");
  ValueId y2 = b.Op("conv2d", {x, w3}, {{"pad", {1, 1, 1, 1}}}, "winograd_b");
  ValueId s = b.Op("add", {y1, y2}, {}, "sum");
  s = b.Op("add", {s, x}, {}, "residual");
  // NCHWc (1x1, stride 2), depthwise, grouped.
  ValueId c1 = b.Op("conv2d", {s, b.Constant("w1", d.Next({32, 64, 1, 1}, -0.2, 0.2))},
                    {{"stride", {2, 2}}}, "pointwise");
  ValueId dw = b.Op("conv2d", {c1, b.Constant("wd", d.Next({32, 1, 3, 3}, -0.3, 0.3))},
                    {{"pad", {1, 1, 1, 1}}, {"groups", 32}}, "depthwise");
  ValueId gr = b.Op("conv2d", {dw, b.Constant("wg", d.Next({32, 16, 3, 3}, -0.1, 0.1))},
                    {{"pad", {1, 1, 1, 1}}, {"groups", 2}}, "grouped");
  ValueId bn =
      b.Op("batch_norm",
           {gr, b.Constant("gamma", d.Next({32}, 0.5, 1.5)), b.Constant("beta", d.Next({32})),
            b.Constant("mean", d.Next({32})), b.Constant("var", d.Next({32}, 0.5, 1.5))},
           {{"epsilon", 1e-5}}, "bn");
  ValueId r = b.Op("relu", {bn});
  ValueId mp = b.Op("max_pool2d", {r}, {{"kh", 2}, {"kw", 2}, {"stride", {2, 2}}}, "max_pool");
  ValueId ap =
      b.Op("avg_pool2d", {r},
           {{"kh", 3}, {"kw", 3}, {"pad", {1, 1, 1, 1}}, {"count_include_pad", false}}, "avg_pool");
  ValueId gap = b.Op("global_avg_pool2d", {ap});
  ValueId gmp = b.Op("global_max_pool2d", {mp});
  ValueId cat = b.Op("concatenate", {gap, gmp}, {{"axis", 1}});
  ValueId f = b.Op("flatten", {cat});
  ValueId fc = b.Op("dense",
                    {f, b.Constant("fc.weight", d.Next({10, 64}, -0.3, 0.3)),
                     b.Constant("fc.bias", d.Next({10}))},
                    {}, "fc");
  b.Output(b.Op("softmax", {fc}));
  b.Output(b.Op("log_softmax", {fc}));
  b.Output(b.Op(
      "layer_norm",
      {fc, b.Constant("ln.gamma", d.Next({10}, 0.5, 1.5)), b.Constant("ln.beta", d.Next({10}))},
      {{"epsilon", 1e-5}}, "ln"));
  b.Output(mp);
  return Finish(b, {xv});
}

absl::StatusOr<TestGraph> ElementwiseAndShapeGraph() {
  Draws d;
  Builder b;
  std::vector<runtime::NDArray> in = {d.Next({2, 3, 4, 5}), d.Next({3, 1, 5}),
                                      d.Next({1, 32, 4, 4}), d.Next({2, 3, 4})};
  ValueId a = b.Input("a", {{2, 3, 4, 5}});
  ValueId bb = b.Input("b", {{3, 1, 5}});
  ValueId x4 = b.Input("x4", {{1, 32, 4, 4}});
  ValueId am = b.Input("am", {{2, 3, 4}});
  ValueId sum = b.Op("add", {a, bb});
  ValueId sub = b.Op("subtract", {a, b.Constant("c5", d.Next({5}))});
  ValueId mul = b.Op("multiply", {sum, sub});
  ValueId div = b.Op("divide", {mul, b.Constant("den", d.Next({4, 5}, 1, 2))});
  ValueId mx = b.Op("maximum", {div, a});
  ValueId mn = b.Op("minimum", {mx, sub});
  ValueId lr = b.Op("leaky_relu", {mn}, {{"alpha", 0.1}});
  ValueId cl = b.Op("clip", {lr}, {{"min", -0.5}, {"max", 0.5}});
  ValueId th = b.Op("tanh", {b.Op("sigmoid", {cl})});
  // Every other operator of one input (nn/unary.h) in a chain, with power and the positive
  // arguments log, sqrt and reciprocal need; floor and ceil on an input (exact values).
  ValueId e = b.Op("exp", {cl});
  ValueId u = b.Op("power", {b.Op("sqrt", {e}), th});
  u = b.Op("add", {u, b.Op("log", {e})});
  u = b.Op("multiply", {u, b.Op("reciprocal", {e})});
  for (const char* op : {"softsign", "erf", "elu", "selu", "softplus", "thresholded_relu",
                         "hard_sigmoid", "hard_swish", "gelu", "negative", "abs"}) {
    u = b.Op(op, {u},
             std::string(op) == "thresholded_relu" ? nlohmann::json{{"alpha", 0.7}}
                                                   : nlohmann::json::object());
  }
  b.Output(u);
  // Every reduction, of the positive e: over the last axis, and over the middle two without
  // keepdims.
  bool last = true;
  for (const ops::nn::ReduceOp& op : ops::nn::ReduceOps()) {
    b.Output(b.Op(op.name, {e},
                  last ? nlohmann::json{{"axes", {3}}}
                       : nlohmann::json{{"axes", {1, 2}}, {"keepdims", false}}));
    last = !last;
  }
  b.Output(b.Op("floor", {a}));
  b.Output(b.Op("ceil", {a}));
  ValueId rs = b.Op("reshape", {th}, {{"newshape", {6, -1}}});
  ValueId tr = b.Op("transpose", {th}, {{"axes", {0, 2, 3, 1}}});
  b.Output(b.Op("pad", {tr},
                {{"pad_before", {0, 1, 0, 0}}, {"pad_after", {0, 0, 2, 0}}, {"value", 0.5}}));
  b.Output(b.Op("matmul", {rs, b.Constant("mB", d.Next({20, 7}))}));
  b.Output(b.Op("batch_matmul", {am, b.Constant("bB", d.Next({2, 4, 5}))}));
  b.Output(b.Op("layout_transform", {x4}, {{"src", "NCHW"}, {"dst", "NCHW16c"}}));
  b.Output(b.Op("lrn", {x4}, {{"size", 5}, {"alpha", 0.5}, {"beta", 0.75}, {"bias", 2.0}}));
  b.Output(b.Op("conv2d_transpose", {x4, b.Constant("wt", d.Next({32, 8, 3, 3}, -0.2, 0.2))},
                {{"stride", {2, 2}}, {"pad", {1, 1, 1, 1}}, {"output_padding", {1, 1}}}, "deconv"));
  // cast: computed floats in [-101, 101) truncated to int32 and widened to float64; int32 ids to
  // int64, and to float32 into an add (the cast fuses into the add's group). Drawn last, so the
  // values above stay as they were.
  ValueId ids = b.Input("ids", {{3, 1, 5}, kInt32});
  in.push_back(d.Next({3, 1, 5}, -1000, 1000, kInt32));
  ValueId wide = b.Op("multiply", {a, b.Constant("hundred", d.Next({1}, 100, 101))});
  b.Output(b.Op("cast", {wide}, {{"to", "int32"}}, "truncate"));
  b.Output(b.Op("cast", {sum}, {{"to", "float64"}}, "widen"));
  b.Output(b.Op("cast", {ids}, {{"to", "int64"}}, "ids_int64"));
  b.Output(b.Op("add", {b.Op("cast", {ids}, {{"to", "float32"}}, "ids_float"), a}, {}, "ids_sum"));
  return Finish(b, std::move(in));
}

absl::StatusOr<TestGraph> RecurrentGraph() {
  Draws d;
  Builder b;
  std::vector<runtime::NDArray> in = {d.Next({2}, 0, 10, kInt32), d.Next({2, 5}), d.Next({2, 4}),
                                      d.Next({2, 4})};
  // x1: an embedding lookup.
  ValueId tokens = b.Input("tokens", {{2}, kInt32});
  ValueId x1 = b.Op("take", {b.Constant("embedding", d.Next({10, 5})), tokens}, {}, "embed");
  ValueId x2 = b.Input("x2", {{2, 5}});
  ValueId h0 = b.Input("h0", {{2, 4}});
  ValueId c0 = b.Input("c0", {{2, 4}});
  ValueId wi = b.Constant("lstm.w_ih", d.Next({16, 5}, -0.5, 0.5));
  ValueId wh = b.Constant("lstm.w_hh", d.Next({16, 4}, -0.5, 0.5));
  ValueId bi = b.Constant("lstm.b_ih", d.Next({16}));
  ValueId bh = b.Constant("lstm.b_hh", d.Next({16}));
  std::vector<ValueId> s1 = b.Add("lstm_cell", {x1, h0, c0, wi, wh, bi, bh}, {}, "step1");
  std::vector<ValueId> s2 = b.Add("lstm_cell", {x2, s1[0], s1[1], wi, wh, bi, bh}, {}, "step2");
  ValueId r = b.Op("rnn_cell",
                   {x1, s2[0], b.Constant("rnn.w_ih", d.Next({4, 5}, -0.5, 0.5)),
                    b.Constant("rnn.w_hh", d.Next({4, 4}, -0.5, 0.5)),
                    b.Constant("rnn.b_ih", d.Next({4})), b.Constant("rnn.b_hh", d.Next({4}))},
                   {}, "rnn");
  b.Output(s2[0]);
  b.Output(s2[1]);
  b.Output(r);
  return Finish(b, std::move(in));
}

absl::StatusOr<TestGraph> BitserialGraph() {
  Draws d;
  Builder b;
  std::vector<runtime::NDArray> in = {d.Next({1, 8, 6, 6}, 0, 4, kUInt8),
                                      d.Next({2, 64}, 0, 4, kUInt8)};
  ValueId x = b.Input("x", {{1, 8, 6, 6}, kUInt8});
  ValueId m = b.Input("m", {{2, 64}, kUInt8});
  b.Output(b.Op("bitserial_conv2d", {x, b.Constant("wc", d.Next({16, 8, 3, 3}, 0, 2, kUInt8))},
                {{"pad", {1, 1, 1, 1}}}));
  b.Output(b.Op("bitserial_dense", {m, b.Constant("wd", d.Next({8, 64}, 0, 2, kUInt8))}));
  return Finish(b, std::move(in));
}

absl::StatusOr<TestGraph> TinyGraph() {
  Draws d;
  Builder b;
  runtime::NDArray xv = d.Next({1, 16, 8, 8});
  ValueId x = b.Input("x", {{1, 16, 8, 8}});
  ValueId y = b.Op("conv2d", {x, b.Constant("w", d.Next({16, 16, 3, 3}, -0.2, 0.2))},
                   {{"pad", {1, 1, 1, 1}}}, "conv");
  y = b.Op("relu", {y}, {}, "relu");
  y = b.Op("flatten", {y});
  y = b.Op("dense", {y, b.Constant("fc.weight", d.Next({10, 1024}, -0.1, 0.1))}, {}, "fc");
  b.Output(y);
  return Finish(b, {xv});
}

absl::StatusOr<TestGraph> LstmGatesGraph() {
  Draws d;
  Builder b;
  std::vector<runtime::NDArray> inputs;
  auto input = [&](const char* name) {
    inputs.push_back(d.Next({2, 24}));
    return b.Input(name, {{2, 24}});
  };
  const ValueId i = input("i"), f = input("f"), g = input("g"), o = input("o"), c = input("c");
  ValueId forget = b.Op("add", {f, b.Constant("forget_bias", d.Next({24}))}, {}, "biased_f");
  forget = b.Op("sigmoid", {forget}, {}, "forget");
  const ValueId kept = b.Op("multiply", {forget, c}, {}, "kept");
  const ValueId in =
      b.Op("multiply", {b.Op("sigmoid", {i}, {}, "in_gate"), b.Op("tanh", {g}, {}, "cell_in")}, {},
           "written");
  const ValueId next_c = b.Op("add", {kept, in}, {}, "next_c");
  const ValueId out_gate = b.Op("sigmoid", {o}, {}, "out_gate");
  const ValueId next_h =
      b.Op("multiply", {out_gate, b.Op("tanh", {next_c}, {}, "cell_out")}, {}, "next_h");
  b.Output(next_h);
  b.Output(next_c);
  return Finish(b, std::move(inputs));
}

absl::StatusOr<TestGraph> SmallResNet() {
  Builder b;
  ValueId x = b.Input("image", {{1, 3, 16, 16}, kFloat32});
  x = b.Op("relu", {ConvBn(b, x, 3, 16, 3, 1, "conv1", 1)});
  x = BasicBlock(b, x, 16, 16, 1, "layer1", 100);
  x = BasicBlock(b, x, 16, 32, 2, "layer2", 200);
  x = b.Op("global_avg_pool2d", {x});
  x = b.Op("flatten", {x}, {{"axis", 1}});
  const ValueId w = b.Constant("fc.weight", RandomArray({10, 32}, kFloat32, -0.2, 0.2, 7));
  b.Output(b.Op("dense", {x, w}, {}, "fc"));
  return Finish(b, {RandomArray({1, 3, 16, 16}, kFloat32, -1, 1, 3)});
}

absl::StatusOr<TestGraph> Int8Graph() {
  Draws d;
  Builder b;
  constexpr DLDataType kInt8{kDLInt, 8, 1};
  runtime::NDArray xv = d.Next({1, 16, 6, 6});
  ValueId x = b.Input("x", {{1, 16, 6, 6}});
  const ValueId q = b.Op("quantize", {x}, {{"scale", 1.0 / 127}}, "q");
  const ValueId w = b.Constant("w", RandomArray({32, 16, 3, 3}, kInt8, -127, 128, 5));
  const ValueId bias = b.Constant("bias", RandomArray({32}, kInt32, -4096, 4096, 6));
  ValueId y = b.Op("conv2d_int8", {q, w, bias},
                   {{"pad", {1, 1, 1, 1}}, {"shift", 9}, {"relu", true}}, "conv_requantized");
  b.Output(b.Op("dequantize", {y}, {{"scale", 0.05}}, "dq"));
  const ValueId w1 = b.Constant("w1", RandomArray({16, 16, 1, 1}, kInt8, -127, 128, 7));
  y = b.Op("conv2d_int8", {q, w1}, {{"stride", {2, 2}}}, "conv_wrapped");
  b.Output(b.Op("dequantize", {y}, {{"scale", 0.5}}, "dq_wrapped"));
  // dense_int8 on rows of another input: requantized with a bias, and wrapped.
  runtime::NDArray vv = d.Next({3, 50});
  const ValueId v = b.Input("v", {{3, 50}});
  const ValueId qv = b.Op("quantize", {v}, {{"scale", 1.0 / 127}}, "qv");
  const ValueId wd = b.Constant("wd", RandomArray({18, 50}, kInt8, -127, 128, 8));
  const ValueId bd = b.Constant("bd", RandomArray({18}, kInt32, -4096, 4096, 9));
  y = b.Op("dense_int8", {qv, wd, bd}, {{"shift", 8}}, "dense_requantized");
  b.Output(b.Op("dequantize", {y}, {{"scale", 0.05}}, "dq_dense"));
  const ValueId wd1 = b.Constant("wd1", RandomArray({7, 50}, kInt8, -127, 128, 10));
  y = b.Op("dense_int8", {qv, wd1}, {}, "dense_wrapped");
  b.Output(b.Op("dequantize", {y}, {{"scale", 0.5}}, "dq_dense_wrapped"));
  return Finish(b, {xv, vv});
}

}  // namespace tessel::driver::testing
