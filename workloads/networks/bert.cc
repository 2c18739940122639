// A BERT-base encoder (Devlin et al.; Hugging Face's BertModel without the pooler) at inference:
// hidden 768, 12 heads of 64, intermediate 3072, 12 layers, vocabulary 30522, sequence 128.
//   input_ids int32[N, 128], attention_mask int32[N, 128] (1: attend, 0: padding)
//   embeddings: take of the word table + the position rows 0..127 + token type 0's row, then
//     layer norm;
//   mask: (1 - cast(mask)) * float32's lowest, as [N, 1, 1, 128], added to every head's scores;
//   each layer, on x [N*128, 768]: query, key, value dense layers; per head softmax(q k^T / 8 +
//     mask) v as batch_matmuls over [N*12, 128, 64]; output dense + x, layer norm; dense 3072,
//     exact gelu x/2 (1 + erf(x/sqrt 2)), dense 768, + the attention output, layer norm;
//   output: last_hidden_state float32[N, 128, 768].
// Layer norms and gelu are written with primitive operators as PyTorch's exporter decomposes
// them (reduce_mean, subtract, power, add, sqrt, divide, multiply; divide, erf, add, multiply).
// Names follow Hugging Face's parameters ("encoder.layer.3.attention.self.query.weight").
//
// Weights: uniform with BERT's initializer's standard deviation 0.02 (dense layers and tables),
// zero-mean biases of the same scale, layer norm gamma in [0.8, 1.2] and beta in [-0.1, 0.1].
#include <absl/strings/str_cat.h>

#include <cmath>
#include <limits>

#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {
namespace {

constexpr double kStd = 0.02;

class BertBuilder {
 public:
  BertBuilder(graph::Builder& b, uint32_t seed, int64_t batch)
      : b_(b), l_(b, seed), seed_(seed), n_(batch) {}

  ValueId Scalar(const std::string& name, float value) {
    runtime::NDArray a = runtime::NDArray::Empty({1}, graph::kFloat32);  // binaries take rank >= 1
    a.data<float>()[0] = value;
    return b_.Constant(name, a);
  }

  ValueId Rows(const std::string& name, int64_t first, int64_t step) {
    runtime::NDArray a = runtime::NDArray::Empty({kBertSequence}, {kDLInt, 32, 1});
    for (int64_t i = 0; i < kBertSequence; ++i) {
      a.data<int32_t>()[i] = static_cast<int32_t>(first + i * step);
    }
    return b_.Constant(name, a);
  }

  // Layer norm over the last axis, decomposed; "<p>.weight", "<p>.bias".
  ValueId LayerNorm(const std::string& p, ValueId x) {
    const ValueId mean =
        b_.Op("reduce_mean", {x}, {{"axes", {-1}}, {"keepdims", true}}, p + ".mean");
    const ValueId d = b_.Op("subtract", {x, mean}, {}, p + ".centered");
    const ValueId sq = b_.Op("power", {d, Scalar(p + ".two", 2.0f)}, {}, p + ".square");
    const ValueId var =
        b_.Op("reduce_mean", {sq}, {{"axes", {-1}}, {"keepdims", true}}, p + ".variance");
    const ValueId eps = b_.Op("add", {var, Scalar(p + ".eps", 1e-12f)}, {}, p + ".variance_eps");
    const ValueId sd = b_.Op("sqrt", {eps}, {}, p + ".std");
    const ValueId normed = b_.Op("divide", {d, sd}, {}, p + ".normalized");
    const ValueId gamma =
        b_.Constant(p + ".weight", UniformArray({kBertHidden}, 0.8, 1.2, seed_, p + ".weight"));
    const ValueId scaled = b_.Op("multiply", {normed, gamma}, {}, p + ".scaled");
    return b_.Op("add", {scaled, l_.Uniform(p + ".bias", {kBertHidden}, 0.1)}, {}, p);
  }

  // A linear layer on rows [m, k] -> [m, n]: "<p>.weight" [n, k], "<p>.bias" [n].
  ValueId Linear(const std::string& p, ValueId x, int64_t n) {
    const std::vector<int64_t>& shape = b_.type(x).shape;  // empty after a failed node
    const int64_t k = shape.size() == 2 ? shape[1] : 1;
    const double bound = kStd * std::sqrt(3.0);
    return b_.Op("dense",
                 {x, l_.Uniform(p + ".weight", {n, k}, bound), l_.Uniform(p + ".bias", {n}, bound)},
                 {}, p);
  }

  ValueId Reshape(ValueId x, const std::vector<int64_t>& shape, const std::string& name) {
    return b_.Op("reshape", {x}, {{"newshape", shape}}, name);
  }

  // [N*S, 768] -> per head [N*12, S, 64], or its transpose [N*12, 64, S].
  ValueId Heads(ValueId x, bool transposed, const std::string& p) {
    x = Reshape(x, {n_, kBertSequence, kBertHeads, kBertHeadSize}, p + ".split");
    const std::vector<int64_t> axes =
        transposed ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3};
    x = b_.Op("transpose", {x}, {{"axes", axes}}, p + ".heads");
    return transposed ? Reshape(x, {n_ * kBertHeads, kBertHeadSize, kBertSequence}, p + ".rows")
                      : Reshape(x, {n_ * kBertHeads, kBertSequence, kBertHeadSize}, p + ".rows");
  }

  ValueId Attention(const std::string& p, ValueId x, ValueId mask) {
    const std::string s = p + ".self";
    const ValueId q = Heads(Linear(s + ".query", x, kBertHidden), false, s + ".query");
    const ValueId kt = Heads(Linear(s + ".key", x, kBertHidden), true, s + ".key");
    const ValueId v = Heads(Linear(s + ".value", x, kBertHidden), false, s + ".value");
    ValueId scores = b_.Op("batch_matmul", {q, kt}, {}, s + ".scores");
    scores = b_.Op("divide", {scores, Scalar(s + ".sqrt_head_size", 8.0f)}, {}, s + ".scaled");
    scores = Reshape(scores, {n_, kBertHeads, kBertSequence, kBertSequence}, s + ".scores4");
    scores = b_.Op("add", {scores, mask}, {}, s + ".masked");
    ValueId probs = b_.Op("softmax", {scores}, {{"axis", -1}}, s + ".probs");
    probs = Reshape(probs, {n_ * kBertHeads, kBertSequence, kBertSequence}, s + ".probs3");
    ValueId context = b_.Op("batch_matmul", {probs, v}, {}, s + ".context");
    context = Reshape(context, {n_, kBertHeads, kBertSequence, kBertHeadSize}, s + ".context4");
    context = b_.Op("transpose", {context}, {{"axes", {0, 2, 1, 3}}}, s + ".merge");
    context = Reshape(context, {n_ * kBertSequence, kBertHidden}, s + ".context_rows");
    const std::string o = p + ".output";
    const ValueId y = Linear(o + ".dense", context, kBertHidden);
    return LayerNorm(o + ".LayerNorm", b_.Op("add", {y, x}, {}, o + ".residual"));
  }

  // x/2 (1 + erf(x / sqrt 2)), as PyTorch exports it.
  ValueId Gelu(const std::string& p, ValueId x) {
    ValueId e = b_.Op("divide", {x, Scalar(p + ".sqrt2", static_cast<float>(std::sqrt(2.0)))}, {},
                      p + ".scaled");
    e = b_.Op("erf", {e}, {}, p + ".erf");
    e = b_.Op("add", {e, Scalar(p + ".one", 1.0f)}, {}, p + ".erf_plus_one");
    const ValueId half = b_.Op("multiply", {x, Scalar(p + ".half", 0.5f)}, {}, p + ".half_x");
    return b_.Op("multiply", {half, e}, {}, p);
  }

  ValueId Layer(const std::string& p, ValueId x, ValueId mask) {
    const ValueId a = Attention(p + ".attention", x, mask);
    ValueId h = Linear(p + ".intermediate.dense", a, kBertIntermediate);
    h = Gelu(p + ".intermediate.gelu", h);
    h = Linear(p + ".output.dense", h, kBertHidden);
    return LayerNorm(p + ".output.LayerNorm", b_.Op("add", {h, a}, {}, p + ".output.residual"));
  }

  graph::Builder& b() { return b_; }
  LayerBuilder& l() { return l_; }

 private:
  graph::Builder& b_;
  LayerBuilder l_;
  uint32_t seed_;
  int64_t n_;
};

}  // namespace

absl::StatusOr<graph::Graph> BuildBertBase(const NetworkOptions& options) {
  const int64_t n = options.batch, s = kBertSequence;
  graph::Builder b;
  BertBuilder bert(b, options.seed, n);
  const ValueId ids = b.Input("input_ids", {{n, s}, {kDLInt, 32, 1}});
  const ValueId mask_ids = b.Input("attention_mask", {{n, s}, {kDLInt, 32, 1}});
  const double bound = kStd * std::sqrt(3.0);

  // Embeddings: [N, S, 768] word rows + [S, 768] position rows + [S, 768] token type 0 rows.
  const std::string e = "embeddings";
  ValueId x = b.Op(
      "take",
      {bert.l().Uniform(e + ".word_embeddings.weight", {kBertVocabulary, kBertHidden}, bound), ids},
      {{"axis", 0}}, e + ".word");
  const ValueId positions = b.Op(
      "take",
      {bert.l().Uniform(e + ".position_embeddings.weight", {kBertPositions, kBertHidden}, bound),
       bert.Rows(e + ".position_ids", 0, 1)},
      {{"axis", 0}}, e + ".position");
  const ValueId types =
      b.Op("take",
           {bert.l().Uniform(e + ".token_type_embeddings.weight", {2, kBertHidden}, bound),
            bert.Rows(e + ".token_type_ids", 0, 0)},
           {{"axis", 0}}, e + ".token_type");
  x = b.Op("add", {x, positions}, {}, e + ".word_position");
  x = b.Op("add", {x, types}, {}, e + ".sum");
  x = bert.Reshape(x, {n * s, kBertHidden}, e + ".rows");
  x = bert.LayerNorm(e + ".LayerNorm", x);

  // (1 - mask) * lowest, [N, 1, 1, S].
  ValueId mask = b.Op("cast", {mask_ids}, {{"to", "float32"}}, "mask.float");
  mask = bert.Reshape(mask, {n, 1, 1, s}, "mask.extended");
  mask = b.Op("subtract", {bert.Scalar("mask.one", 1.0f), mask}, {}, "mask.inverted");
  mask = b.Op("multiply", {mask, bert.Scalar("mask.lowest", std::numeric_limits<float>::lowest())},
              {}, "mask.bias");

  for (int64_t layer = 0; layer < kBertLayers; ++layer) {
    x = bert.Layer(absl::StrCat("encoder.layer.", layer), x, mask);
  }
  x = bert.Reshape(x, {n, s, kBertHidden}, "last_hidden_state");
  b.Output(x);
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
