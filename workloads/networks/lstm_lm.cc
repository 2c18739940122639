// The LSTM language model of the paper's Fig. 14 (PyTorch's word_language_model, "medium":
// vocabulary 10000, embedding and hidden 650, two layers), unrolled over a sequence of 35:
//   tokens int32[35, N] -> take of the embedding table "encoder.weight" -> [35, N, 650]
//   -> reshape [35 N, 650] -> per step t, take of rows t N .. t N + N - 1 -> x_t [N, 650]
//   -> 35 steps x 2 layers of lstm_cell (h and c start as zero constants "rnn.h0_l<k>",
//      "rnn.c0_l<k>") -> the last layer's h_t concatenated -> [35 N, 650]
//   -> dense "decoder" 650 -> 10000 -> log_softmax.
// The LSTM weights carry torch.nn.LSTM's names ("rnn.weight_ih_l0", ...).
//
// Scales: the embedding is uniform with unit variance (torch's nn.Embedding draws N(0, 1)); the
// LSTM weights are uniform in +-2 sqrt(3 / 650) (gain 2 over the fan-in), so gate
// pre-activations are O(1) and h reaches an rms of 0.1-0.3 (torch's default, +-1/sqrt(650),
// leaves the second layer's h near 0.05-0.08); the decoder's gain is 5, for logits of rms about 1
// from such h (gain 1 would leave the log-probabilities nearly uniform).
#include <absl/strings/str_cat.h>

#include <cmath>

#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {

absl::StatusOr<graph::Graph> BuildLstmLm(const NetworkOptions& options) {
  const int64_t n = options.batch;
  const int64_t hidden = kLstmHidden;
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  const ValueId tokens = b.Input("tokens", {{kLstmSteps, n}, {kDLInt, 32, 1}});
  const ValueId table = l.Uniform("encoder.weight", {kLstmVocabulary, hidden}, std::sqrt(3.0));
  ValueId embedded = b.Op("take", {table, tokens}, {{"axis", 0}}, "encoder");
  embedded = b.Op("reshape", {embedded}, {{"newshape", {kLstmSteps * n, hidden}}}, "encoder.rows");

  const double bound = 2 * std::sqrt(3.0 / static_cast<double>(hidden));
  struct Layer {
    ValueId w_ih, w_hh, b_ih, b_hh, h, c;
  };
  std::vector<Layer> layers;
  for (int64_t k = 0; k < kLstmLayers; ++k) {
    auto name = [&](const char* what) { return absl::StrCat("rnn.", what, "_l", k); };
    layers.push_back({l.Uniform(name("weight_ih"), {4 * hidden, hidden}, bound),
                      l.Uniform(name("weight_hh"), {4 * hidden, hidden}, bound),
                      l.Uniform(name("bias_ih"), {4 * hidden}, bound),
                      l.Uniform(name("bias_hh"), {4 * hidden}, bound),
                      b.Constant(name("h0"), ZerosArray({n, hidden})),
                      b.Constant(name("c0"), ZerosArray({n, hidden}))});
  }
  std::vector<ValueId> outputs;
  for (int64_t t = 0; t < kLstmSteps; ++t) {
    runtime::NDArray rows = runtime::NDArray::Empty({n}, {kDLInt, 32, 1});
    for (int64_t i = 0; i < n; ++i) rows.data<int32_t>()[i] = static_cast<int32_t>(t * n + i);
    const ValueId index = b.Constant(absl::StrCat("step", t, ".rows"), rows);
    ValueId x = b.Op("take", {embedded, index}, {{"axis", 0}}, absl::StrCat("step", t, ".input"));
    for (int64_t k = 0; k < kLstmLayers; ++k) {
      Layer& layer = layers[static_cast<size_t>(k)];
      const std::vector<ValueId> hc =
          b.Add("lstm_cell", {x, layer.h, layer.c, layer.w_ih, layer.w_hh, layer.b_ih, layer.b_hh},
                {}, absl::StrCat("rnn.l", k, ".t", t));
      layer.h = hc[0];
      layer.c = hc[1];
      x = hc[0];
    }
    outputs.push_back(x);
  }
  ValueId y = b.Op("concatenate", outputs, {{"axis", 0}}, "rnn.output");
  const ValueId decoder_w = l.Uniform("decoder.weight", {kLstmVocabulary, hidden}, 5 * bound / 2);
  const ValueId decoder_b = l.Uniform("decoder.bias", {kLstmVocabulary}, 0.1);
  y = b.Op("dense", {y, decoder_w, decoder_b}, {}, "decoder");
  y = b.Op("log_softmax", {y}, {{"axis", -1}}, "log_softmax");
  b.Output(y);
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
