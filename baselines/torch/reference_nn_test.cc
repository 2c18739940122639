// Pooling, batch_norm, activations (every operator of one input has a reference), softmax, the
// matrix products and the recurrent cells against naive loops and hand-computed values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "baselines/torch/reference.h"
#include "baselines/torch/test_util.h"
#include "compiler/ops/nn/unary.h"

namespace tessel::baselines {
namespace {

using runtime::NDArray;
using testing::Array;
using testing::ExpectValuesNear;
using testing::Random;
using testing::RunOne;

std::vector<float> Iota(int64_t count) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = static_cast<float>(i + 1);
  return v;
}

ops::OpArgs PoolArgs(int64_t h, int64_t w, int64_t k, int64_t s, std::vector<int64_t> pad,
                     bool ceil_mode) {
  return {{"n", 1},           {"c", 1},     {"h", h},
          {"w", w},           {"kh", k},    {"kw", k},
          {"stride", {s, s}}, {"pad", pad}, {"ceil_mode", ceil_mode}};
}

TEST(TorchReferenceNnTest, MaxPoolCeilModeByHand) {
  const NDArray data = Array({1, 1, 5, 5}, Iota(25));  // 1..25, row-major
  // Windows rows {0,1}, {2,3}, {4} (the ceil-mode remainder), columns alike.
  ExpectValuesNear(RunOne("max_pool2d", PoolArgs(5, 5, 2, 2, {0, 0, 0, 0}, true), {data}),
                   {1, 1, 3, 3}, {7, 9, 10, 17, 19, 20, 22, 24, 25});
  // Floor mode drops the remainder.
  ExpectValuesNear(RunOne("max_pool2d", PoolArgs(5, 5, 2, 2, {0, 0, 0, 0}, false), {data}),
                   {1, 1, 2, 2}, {7, 9, 17, 19});
  // Padding 1: windows start at rows -1, 1, 3; torch's rule drops a fourth window, which would
  // start at row 5, in the bottom padding.
  ExpectValuesNear(RunOne("max_pool2d", PoolArgs(5, 5, 2, 2, {1, 1, 1, 1}, true), {data}),
                   {1, 1, 3, 3}, {1, 3, 5, 11, 13, 15, 21, 23, 25});
}

TEST(TorchReferenceNnTest, AvgPoolCeilModeAndCountIncludePadByHand) {
  const NDArray data = Array({1, 1, 5, 5}, Iota(25));
  ops::OpArgs args = PoolArgs(5, 5, 2, 2, {0, 0, 0, 0}, true);
  // The remainder windows average only what they hold, with or without count_include_pad.
  const std::vector<float> want = {4, 6, 7.5, 14, 16, 17.5, 21.5, 23.5, 25};
  for (const bool include : {false, true}) {
    args["count_include_pad"] = include;
    ExpectValuesNear(RunOne("avg_pool2d", args, {data}), {1, 1, 3, 3}, want);
  }
  // [[1, 2], [3, 4]], 2x2 windows, stride 1, padding 1: the window sums are
  // 1 3 2 / 4 10 6 / 3 7 4; their divisor is 4 with the padding counted, the input elements
  // inside the window without.
  const NDArray small = Array({1, 1, 2, 2}, {1, 2, 3, 4});
  ops::OpArgs pad_args = PoolArgs(2, 2, 2, 1, {1, 1, 1, 1}, false);
  pad_args["count_include_pad"] = true;
  ExpectValuesNear(RunOne("avg_pool2d", pad_args, {small}), {1, 1, 3, 3},
                   {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1});
  pad_args["count_include_pad"] = false;
  ExpectValuesNear(RunOne("avg_pool2d", pad_args, {small}), {1, 1, 3, 3},
                   {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
}

// The pooling of forms.h, one window at a time.
std::vector<float> NaivePool(const NDArray& data, int64_t h, int64_t w, int64_t k, int64_t s,
                             const std::vector<int64_t>& pad, bool ceil_mode, bool is_max,
                             bool include_pad, int64_t* oh_out, int64_t* ow_out) {
  auto extent = [&](int64_t size, int64_t before, int64_t after) {
    const int64_t span = size + before + after - k;
    int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (o - 1) * s >= size + before) --o;
    return o;
  };
  const int64_t oh = extent(h, pad[0], pad[2]), ow = extent(w, pad[1], pad[3]);
  *oh_out = oh;
  *ow_out = ow;
  const int64_t planes = data.shape()[0] * data.shape()[1];
  std::vector<float> out;
  for (int64_t p = 0; p < planes; ++p) {
    const float* x = data.data<float>() + p * h * w;
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo) {
        const int64_t y0 = y * s - pad[0], x0 = xo * s - pad[1];
        const int64_t y1 = std::min(y0 + k, h + pad[2]), x1 = std::min(x0 + k, w + pad[3]);
        double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t inside = 0;
        for (int64_t iy = std::max<int64_t>(y0, 0); iy < std::min(y1, h); ++iy)
          for (int64_t ix = std::max<int64_t>(x0, 0); ix < std::min(x1, w); ++ix) {
            acc = is_max ? std::max<double>(acc, x[iy * w + ix]) : acc + x[iy * w + ix];
            ++inside;
          }
        const int64_t count = include_pad ? (y1 - y0) * (x1 - x0) : inside;
        out.push_back(static_cast<float>(is_max ? acc : acc / count));
      }
  }
  return out;
}

TEST(TorchReferenceNnTest, PoolingWithAsymmetricPaddingMatchesNaiveLoops) {
  struct Case {
    int64_t h, w, k, s;
    std::vector<int64_t> pad;
    bool ceil_mode;
  };
  const std::vector<Case> cases = {
      {7, 8, 3, 2, {1, 0, 2, 1}, false},     {7, 8, 3, 2, {1, 0, 2, 1}, true},
      {6, 9, 3, 2, {0, 2, 1, 2}, true},      {10, 7, 2, 3, {1, 1, 0, 1}, true},
      {112, 112, 3, 2, {1, 1, 1, 1}, false},
  };
  uint32_t seed = 5;
  for (const Case& c : cases) {
    const NDArray data = Random({2, 3, c.h, c.w}, seed++);
    for (const char* op : {"max_pool2d", "avg_pool2d"}) {
      for (const bool include : {false, true}) {
        const bool is_max = std::string(op) == "max_pool2d";
        if (is_max && include) continue;
        ops::OpArgs args = PoolArgs(c.h, c.w, c.k, c.s, c.pad, c.ceil_mode);
        args["n"] = 2;
        args["c"] = 3;
        if (!is_max) args["count_include_pad"] = include;
        SCOPED_TRACE(std::string(op) + " " + args.dump());
        int64_t oh = 0, ow = 0;
        const std::vector<float> want =
            NaivePool(data, c.h, c.w, c.k, c.s, c.pad, c.ceil_mode, is_max, include, &oh, &ow);
        ExpectValuesNear(RunOne(op, args, {data}), {2, 3, oh, ow}, want);
      }
    }
  }
}

TEST(TorchReferenceNnTest, GlobalPoolsAndBatchNorm) {
  const NDArray data = Random({2, 3, 4, 5}, 21);
  const float* x = data.data<float>();
  std::vector<float> mean, largest;
  for (int p = 0; p < 6; ++p) {
    double sum = 0;
    float top = x[p * 20];
    for (int i = 0; i < 20; ++i) {
      sum += x[p * 20 + i];
      top = std::max(top, x[p * 20 + i]);
    }
    mean.push_back(static_cast<float>(sum / 20));
    largest.push_back(top);
  }
  const ops::OpArgs args = {{"n", 2}, {"c", 3}, {"h", 4}, {"w", 5}};
  ExpectValuesNear(RunOne("global_avg_pool2d", args, {data}), {2, 3, 1, 1}, mean);
  ExpectValuesNear(RunOne("global_max_pool2d", args, {data}), {2, 3, 1, 1}, largest);

  const NDArray gamma = Random({3}, 22), beta = Random({3}, 23), mu = Random({3}, 24);
  const NDArray var = Random({3}, 25, 0.5f, 2.0f);
  ops::OpArgs bn = args;
  bn["epsilon"] = 1e-3;
  std::vector<float> want;
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < 20; ++i) {
        const float v = x[(b * 3 + c) * 20 + i];
        want.push_back((v - mu.data<float>()[c]) / std::sqrt(var.data<float>()[c] + 1e-3f) *
                           gamma.data<float>()[c] +
                       beta.data<float>()[c]);
      }
  ExpectValuesNear(RunOne("batch_norm", bn, {data, gamma, beta, mu, var}), {2, 3, 4, 5}, want);
}

TEST(TorchReferenceNnTest, ActivationsAndSoftmax) {
  const NDArray x = Random({2, 3, 4}, 31, -3, 3);
  const std::vector<float> v = testing::Values(x);
  auto map = [&](auto f) {
    std::vector<float> out;
    for (float e : v) out.push_back(static_cast<float>(f(e)));
    return out;
  };
  const ops::OpArgs shape = {{"shape", {2, 3, 4}}};
  ExpectValuesNear(RunOne("relu", shape, {x}), {2, 3, 4},
                   map([](float e) { return e > 0 ? e : 0; }));
  ExpectValuesNear(RunOne("sigmoid", shape, {x}), {2, 3, 4},
                   map([](float e) { return 1 / (1 + std::exp(-double{e})); }));
  ExpectValuesNear(RunOne("tanh", shape, {x}), {2, 3, 4},
                   map([](float e) { return std::tanh(e); }));
  ops::OpArgs leaky = shape;
  leaky["alpha"] = 0.2;
  ExpectValuesNear(RunOne("leaky_relu", leaky, {x}), {2, 3, 4},
                   map([](float e) { return e > 0 ? e : 0.2 * e; }));
  ExpectValuesNear(RunOne("leaky_relu", shape, {x}), {2, 3, 4},
                   map([](float e) { return e > 0 ? e : 0.01 * e; }));
  ops::OpArgs clip = shape;
  clip["min"] = -1;
  clip["max"] = 0.5;
  ExpectValuesNear(RunOne("clip", clip, {x}), {2, 3, 4},
                   map([](float e) { return std::clamp(e, -1.0f, 0.5f); }));

  ops::OpArgs elu = shape;
  elu["alpha"] = 0.5;
  ExpectValuesNear(RunOne("elu", elu, {x}), {2, 3, 4},
                   map([](float e) { return e > 0 ? e : 0.5 * std::expm1(double{e}); }));
  ExpectValuesNear(RunOne("selu", shape, {x}), {2, 3, 4}, map([](float e) {
                     return 1.0507009873554805 * (e > 0 ? e : 1.6732632423543772 * std::expm1(e));
                   }));
  ExpectValuesNear(RunOne("gelu", shape, {x}), {2, 3, 4},
                   map([](float e) { return 0.5 * e * (1 + std::erf(e / std::sqrt(2.0))); }));
  ExpectValuesNear(RunOne("hard_sigmoid", shape, {x}), {2, 3, 4},
                   map([](float e) { return std::clamp(0.2 * e + 0.5, 0.0, 1.0); }));
  ExpectValuesNear(RunOne("thresholded_relu", shape, {x}), {2, 3, 4},
                   map([](float e) { return e > 1 ? e : 0; }));
  ExpectValuesNear(RunOne("softsign", shape, {x}), {2, 3, 4},
                   map([](float e) { return e / (1 + std::abs(e)); }));

  // Softmax along axis 1 (size 3) and along the last axis (default).
  for (const int axis : {1, -1}) {
    std::vector<float> soft(v.size()), log_soft(v.size());
    const int size = axis == 1 ? 3 : 4, step = axis == 1 ? 4 : 1;
    for (int b = 0; b < 2; ++b)
      for (int j = 0; j < (axis == 1 ? 4 : 3); ++j) {
        const int base = axis == 1 ? b * 12 + j : b * 12 + j * 4;
        double total = 0;
        for (int i = 0; i < size; ++i) total += std::exp(double{v[base + i * step]});
        for (int i = 0; i < size; ++i) {
          soft[base + i * step] = static_cast<float>(std::exp(double{v[base + i * step]}) / total);
          log_soft[base + i * step] = static_cast<float>(v[base + i * step] - std::log(total));
        }
      }
    ops::OpArgs args = shape;
    if (axis == 1) args["axis"] = 1;
    ExpectValuesNear(RunOne("softmax", args, {x}), {2, 3, 4}, soft);
    ExpectValuesNear(RunOne("log_softmax", args, {x}), {2, 3, 4}, log_soft);
  }
}

TEST(TorchReferenceNnTest, DenseMatmulBatchMatmul) {
  const NDArray a = Random({3, 5}, 41), w = Random({4, 5}, 42), bias = Random({4}, 43);
  const NDArray b = Random({5, 4}, 44);
  std::vector<float> dense, dense_bias, mm;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      double d = 0, m = 0;
      for (int k = 0; k < 5; ++k) {
        d += a.data<float>()[i * 5 + k] * w.data<float>()[j * 5 + k];
        m += a.data<float>()[i * 5 + k] * b.data<float>()[k * 4 + j];
      }
      dense.push_back(static_cast<float>(d));
      dense_bias.push_back(static_cast<float>(d + bias.data<float>()[j]));
      mm.push_back(static_cast<float>(m));
    }
  const ops::OpArgs args = {{"m", 3}, {"n", 4}, {"k", 5}};
  ExpectValuesNear(RunOne("dense", args, {a, w}), {3, 4}, dense);
  ops::OpArgs with_bias = args;
  with_bias["bias"] = true;
  ExpectValuesNear(RunOne("dense", with_bias, {a, w, bias}), {3, 4}, dense_bias);
  ExpectValuesNear(RunOne("matmul", args, {a, b}), {3, 4}, mm);

  const NDArray ba = Random({2, 3, 5}, 45), bb = Random({2, 5, 4}, 46);
  std::vector<float> bmm;
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        double s = 0;
        for (int k = 0; k < 5; ++k) {
          s += ba.data<float>()[(t * 3 + i) * 5 + k] * bb.data<float>()[(t * 5 + k) * 4 + j];
        }
        bmm.push_back(static_cast<float>(s));
      }
  ExpectValuesNear(RunOne("batch_matmul", {{"batch", 2}, {"m", 3}, {"n", 4}, {"k", 5}}, {ba, bb}),
                   {2, 3, 4}, bmm);
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// gates[b, r] = x[b] . w_ih[r] + h[b] . w_hh[r] + b_ih[r] + b_hh[r].
std::vector<double> Gates(const NDArray& x, const NDArray& h, const NDArray& w_ih,
                          const NDArray& w_hh, const NDArray& b_ih, const NDArray& b_hh,
                          int64_t batch, int64_t input, int64_t hidden, int64_t rows) {
  std::vector<double> g(batch * rows);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r) {
      double s = b_ih.data<float>()[r] + b_hh.data<float>()[r];
      for (int64_t i = 0; i < input; ++i)
        s += x.data<float>()[b * input + i] * w_ih.data<float>()[r * input + i];
      for (int64_t i = 0; i < hidden; ++i)
        s += h.data<float>()[b * hidden + i] * w_hh.data<float>()[r * hidden + i];
      g[b * rows + r] = s;
    }
  return g;
}

TEST(TorchReferenceNnTest, RnnAndLstmCellsMatchNaiveLoops) {
  const int64_t batch = 2, input = 3, hidden = 4;
  const ops::OpArgs args = {{"batch", batch}, {"input", input}, {"hidden", hidden}};
  const NDArray x = Random({batch, input}, 51), h = Random({batch, hidden}, 52);
  const NDArray c = Random({batch, hidden}, 53);
  {
    const NDArray w_ih = Random({hidden, input}, 54), w_hh = Random({hidden, hidden}, 55);
    const NDArray b_ih = Random({hidden}, 56), b_hh = Random({hidden}, 57);
    std::vector<float> want;
    for (double g : Gates(x, h, w_ih, w_hh, b_ih, b_hh, batch, input, hidden, hidden)) {
      want.push_back(static_cast<float>(std::tanh(g)));
    }
    ExpectValuesNear(RunOne("rnn_cell", args, {x, h, w_ih, w_hh, b_ih, b_hh}), {batch, hidden},
                     want);
  }
  const NDArray w_ih = Random({4 * hidden, input}, 58), w_hh = Random({4 * hidden, hidden}, 59);
  const NDArray b_ih = Random({4 * hidden}, 60), b_hh = Random({4 * hidden}, 61);
  const std::vector<double> g =
      Gates(x, h, w_ih, w_hh, b_ih, b_hh, batch, input, hidden, 4 * hidden);
  std::vector<float> want_h, want_c;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < hidden; ++j) {
      auto gate = [&](int k) { return g[b * 4 * hidden + k * hidden + j]; };  // i, f, g, o
      const double cell = Sigmoid(gate(1)) * c.data<float>()[b * hidden + j] +
                          Sigmoid(gate(0)) * std::tanh(gate(2));
      want_c.push_back(static_cast<float>(cell));
      want_h.push_back(static_cast<float>(Sigmoid(gate(3)) * std::tanh(cell)));
    }
  absl::StatusOr<std::vector<NDArray>> out =
      TorchReference("lstm_cell", args, {x, h, c, w_ih, w_hh, b_ih, b_hh});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  ExpectValuesNear(out->at(0), {batch, hidden}, want_h);
  ExpectValuesNear(out->at(1), {batch, hidden}, want_c);
}

TEST(TorchReferenceNnTest, LstmGateOrderByHand) {
  // One unit, zero weights: the gates are the biases. Input gate open, forget gate shut,
  // candidate 0.5, output gate open: c' ~ 0.5 and h' ~ tanh(0.5). Any other gate order differs.
  const ops::OpArgs args = {{"batch", 1}, {"input", 1}, {"hidden", 1}};
  const NDArray x = Array({1, 1}, {1}), h = Array({1, 1}, {1}), c = Array({1, 1}, {3});
  const NDArray w_ih = Array({4, 1}, {0, 0, 0, 0}), w_hh = Array({4, 1}, {0, 0, 0, 0});
  const NDArray b_ih = Array({4}, {10, -10, static_cast<float>(std::atanh(0.5)), 10});
  const NDArray b_hh = Array({4}, {0, 0, 0, 0});
  absl::StatusOr<std::vector<NDArray>> out =
      TorchReference("lstm_cell", args, {x, h, c, w_ih, w_hh, b_ih, b_hh});
  ASSERT_TRUE(out.ok()) << out.status();
  const double cell = Sigmoid(-10) * 3 + Sigmoid(10) * 0.5;
  ExpectValuesNear(out->at(1), {1, 1}, {static_cast<float>(cell)});
  ExpectValuesNear(out->at(0), {1, 1}, {static_cast<float>(Sigmoid(10) * std::tanh(cell))});
  EXPECT_NEAR(out->at(1).data<float>()[0], 0.5, 1e-3);
}

TEST(TorchReferenceNnTest, EveryUnaryOperatorHasAReference) {
  const NDArray x = Random({5}, 32, 0.5, 2);
  for (const ops::nn::UnaryOp& op : ops::nn::UnaryOps()) {
    ops::OpArgs args = {{"shape", {5}}};
    if (std::string(op.name) == "clip") args["min"] = 0, args["max"] = 1;
    absl::StatusOr<std::vector<NDArray>> out = TorchReference(op.name, args, {x});
    EXPECT_TRUE(out.ok()) << op.name << ": " << out.status();
  }
}

}  // namespace
}  // namespace tessel::baselines
