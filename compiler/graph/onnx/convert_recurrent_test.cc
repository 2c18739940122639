// LSTM (forward, reverse, bidirectional; with and without initial states) against the ONNX
// equations computed here, and the forms Tessel refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

struct LstmOut {
  std::vector<float> y, y_h, y_c;  // [seq, dirs, batch, H], [dirs, batch, H] x 2
};

// ONNX's LSTM: gates i, o, f, c in W [dirs, 4H, I], R [dirs, 4H, H], B [dirs, 8H].
LstmOut LstmLoops(const NDArray& x, const NDArray& w, const NDArray& r, const NDArray& b,
                  const NDArray* h0, const NDArray* c0, int64_t dirs, bool reverse_only) {
  const int64_t seq = x.shape()[0], batch = x.shape()[1], in = x.shape()[2];
  const int64_t hid = r.shape()[2];
  LstmOut out;
  out.y.assign(seq * dirs * batch * hid, 0);
  for (int64_t d = 0; d < dirs; ++d) {
    std::vector<float> h(batch * hid, 0), c(batch * hid, 0);
    for (int64_t i = 0; i < batch * hid; ++i) {
      if (h0) h[i] = h0->data<float>()[d * batch * hid + i];
      if (c0) c[i] = c0->data<float>()[d * batch * hid + i];
    }
    const bool reverse = reverse_only || d == 1;
    for (int64_t step = 0; step < seq; ++step) {
      const int64_t t = reverse ? seq - 1 - step : step;
      std::vector<float> nh(batch * hid), nc(batch * hid);
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < hid; ++j) {
          float g[4];
          for (int64_t q = 0; q < 4; ++q) {
            const int64_t row = q * hid + j;
            double acc =
                b.data<float>()[d * 8 * hid + row] + b.data<float>()[d * 8 * hid + 4 * hid + row];
            for (int64_t k = 0; k < in; ++k) {
              acc += x.data<float>()[(t * batch + n) * in + k] *
                     w.data<float>()[(d * 4 * hid + row) * in + k];
            }
            for (int64_t k = 0; k < hid; ++k) {
              acc += h[n * hid + k] * r.data<float>()[(d * 4 * hid + row) * hid + k];
            }
            g[q] = static_cast<float>(acc);
          }
          const float ig = Sigmoid(g[0]), og = Sigmoid(g[1]), fg = Sigmoid(g[2]);
          const float cg = std::tanh(g[3]);
          nc[n * hid + j] = fg * c[n * hid + j] + ig * cg;
          nh[n * hid + j] = og * std::tanh(nc[n * hid + j]);
        }
      h = nh;
      c = nc;
      for (int64_t i = 0; i < batch * hid; ++i) out.y[((t * dirs + d) * batch) * hid + i] = h[i];
    }
    out.y_h.insert(out.y_h.end(), h.begin(), h.end());
    out.y_c.insert(out.y_c.end(), c.begin(), c.end());
  }
  return out;
}

TEST(ConvertRecurrentTest, LstmDirectionsAndStates) {
  const int64_t seq = 3, batch = 2, in = 4, hid = 5;
  for (const std::string direction : {"forward", "reverse", "bidirectional"}) {
    for (bool states : {false, true}) {
      const int64_t dirs = direction == "bidirectional" ? 2 : 1;
      const NDArray x = Random({seq, batch, in}, 1), w = Random({dirs, 4 * hid, in}, 2),
                    r = Random({dirs, 4 * hid, hid}, 3), b = Random({dirs, 8 * hid}, 4),
                    h0 = Random({dirs, batch, hid}, 5), c0 = Random({dirs, batch, hid}, 6);
      ::onnx::ModelProto m = NewModel(14);
      AddInput(m, "x", {seq, batch, in});
      AddInitializer(m, "w", w);
      AddInitializer(m, "r", r);
      AddInitializer(m, "b", b);
      std::vector<NDArray> inputs = {x};
      std::vector<std::string> node_inputs = {"x", "w", "r", "b"};
      if (states) {
        AddInput(m, "h0", {dirs, batch, hid});
        AddInput(m, "c0", {dirs, batch, hid});
        inputs.push_back(h0);
        inputs.push_back(c0);
        node_inputs.insert(node_inputs.end(), {"", "h0", "c0"});
      }
      auto& n = AddNode(m, "LSTM", node_inputs, {"y", "y_h", "y_c"}, "lstm");
      SetAttr(n, "hidden_size", hid);
      SetAttr(n, "direction", direction);
      AddOutput(m, "y", 4);
      AddOutput(m, "y_h", 3);
      AddOutput(m, "y_c", 3);
      absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, inputs);
      ASSERT_TRUE(y.ok()) << y.status();
      const LstmOut want = LstmLoops(x, w, r, b, states ? &h0 : nullptr, states ? &c0 : nullptr,
                                     dirs, direction == "reverse");
      const std::string what = direction + (states ? " with states" : "");
      EXPECT_LT(MaxError((*y)[0], Floats({seq, dirs, batch, hid}, want.y)), 1e-5) << what;
      EXPECT_LT(MaxError((*y)[1], Floats({dirs, batch, hid}, want.y_h)), 1e-5) << what;
      EXPECT_LT(MaxError((*y)[2], Floats({dirs, batch, hid}, want.y_c)), 1e-5) << what;
    }
  }
}

TEST(ConvertRecurrentTest, RefusedForms) {
  ::onnx::ModelProto m = NewModel(14);
  AddInput(m, "x", {2, 1, 3});
  AddInitializer(m, "w", Random({1, 8, 3}, 1));
  AddInitializer(m, "r", Random({1, 8, 2}, 2));
  auto& n = AddNode(m, "LSTM", {"x", "w", "r"}, {"y"}, "lstm");
  SetAttr(n, "hidden_size", int64_t{2});
  SetAttr(n, "clip", 1.0f);
  AddOutput(m, "y", 4);
  EXPECT_THAT(std::string(Import(m).status().message()),
              HasSubstr("unsupported ONNX operator 'LSTM' (node 'lstm' in test.onnx): attribute "
                        "'clip'"));
}

}  // namespace
}  // namespace tessel::graph::onnx
