#include "compiler/graph/passes/quantize_layers.h"

#include <gtest/gtest.h>

#include <cmath>

#include "baselines/torch/graph_reference.h"
#include "compiler/graph/passes/fold_batch_norm.h"
#include "compiler/graph/passes/test_util.h"

namespace tessel::graph::passes {
namespace {

using testing::CountOp;
using testing::RandomArray;

// The largest |x| of every value of g on one seeded input.
std::vector<double> Calibrate(const Graph& g, uint32_t seed) {
  const runtime::NDArray x = RandomArray(g.type(g.inputs[0]).shape, seed);
  absl::StatusOr<std::vector<runtime::NDArray>> values = baselines::EvaluateReferenceValues(g, {x});
  EXPECT_TRUE(values.ok()) << values.status();
  std::vector<double> max_abs(g.values.size(), 0);
  for (size_t v = 0; v < values->size(); ++v) {
    const runtime::NDArray& a = (*values)[v];
    if (!a.defined() || a.dtype().code != kDLFloat) continue;
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      max_abs[v] = std::max(max_abs[v], std::abs(static_cast<double>(a.data<float>()[i])));
    }
  }
  return max_abs;
}

const QuantizeLayersOptions kAll{.eligible = [](const Graph&, const Node&) { return true; }};

Graph Folded(int64_t c, int blocks) {
  absl::StatusOr<Graph> g = FoldBatchNorm(testing::ResNetBlocks(c, blocks, true, 3));
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

// Each block's two convolutions become int8 ones with their bias (and the first its relu);
// the residual add and the last relu stay float; a quantized value feeds both convolutions
// that read it through one quantize.
TEST(QuantizeLayersTest, RewritesEachConvolutionChain) {
  const Graph g = Folded(16, 2);
  absl::StatusOr<Graph> q = QuantizeLayers(g, Calibrate(g, 1), kAll);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(CountOp(*q, "conv2d"), 0);
  EXPECT_EQ(CountInt8Layers(*q), 4);
  EXPECT_EQ(CountOp(*q, "quantize"), 4);
  EXPECT_EQ(CountOp(*q, "dequantize"), 4);
  EXPECT_EQ(CountOp(*q, "add"), 2);  // the residuals; the biases went into the convolutions
  EXPECT_EQ(CountOp(*q, "relu"), 2);
  int with_relu = 0;
  for (const Node& n : q->nodes) {
    if (n.op != "conv2d_int8") continue;
    with_relu += n.attrs.at("relu").get<bool>() ? 1 : 0;
    EXPECT_EQ(q->type(n.inputs[1]).dtype.bits, 8);
    EXPECT_EQ(q->type(n.inputs[2]).dtype.bits, 32);
  }
  EXPECT_EQ(with_relu, 2);
}

// The quantized graph (evaluated with libtorch's int8 references) stays close to the float one
// on an input calibration did not see; a wrong scale or shift would not.
TEST(QuantizeLayersTest, StaysCloseToTheFloatGraph) {
  const Graph g = Folded(32, 2);
  absl::StatusOr<Graph> q = QuantizeLayers(g, Calibrate(g, 1), kAll);
  ASSERT_TRUE(q.ok()) << q.status();
  const runtime::NDArray x = RandomArray(g.type(g.inputs[0]).shape, 2);
  absl::StatusOr<std::vector<runtime::NDArray>> want = baselines::EvaluateReference(g, {x});
  absl::StatusOr<std::vector<runtime::NDArray>> got = baselines::EvaluateReference(*q, {x});
  ASSERT_TRUE(want.ok() && got.ok());
  double err = 0, norm = 0;
  const float* a = (*want)[0].data<float>();
  const float* b = (*got)[0].data<float>();
  for (int64_t i = 0; i < (*want)[0].NumElements(); ++i) {
    err += (a[i] - b[i]) * (a[i] - b[i]);
    norm += a[i] * a[i];
  }
  EXPECT_GT(norm, 0);
  EXPECT_LT(std::sqrt(err / norm), 0.05);
}

// A classifier: dense 64 -> 32 with its own bias and a relu, then dense 32 -> 10 with an add's
// bias (as an ONNX MatMul + Add leaves it).
Graph Classifier() {
  Builder b;
  const ValueId x = b.Input("x", {{1, 64}, {kDLFloat, 32, 1}});
  const ValueId w1 = b.Constant("w1", RandomArray({32, 64}, 3, -0.2f, 0.2f));
  const ValueId b1 = b.Constant("b1", RandomArray({32}, 4));
  const ValueId h = b.Op("relu", {b.Op("dense", {x, w1, b1}, {}, "fc1")}, {}, "relu1");
  const ValueId w2 = b.Constant("w2", RandomArray({10, 32}, 5, -0.3f, 0.3f));
  const ValueId b2 = b.Constant("b2", RandomArray({1, 10}, 6));
  const ValueId y = b.Op("dense", {h, w2}, {}, "fc2");
  b.Output(b.Op("add", {y, b2}, {}, "bias2"));
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

// The relative L2 distance of q's output from g's on the input of this seed.
double Distance(const Graph& g, const Graph& q, uint32_t seed) {
  const runtime::NDArray x = RandomArray(g.type(g.inputs[0]).shape, seed);
  absl::StatusOr<std::vector<runtime::NDArray>> want = baselines::EvaluateReference(g, {x});
  absl::StatusOr<std::vector<runtime::NDArray>> got = baselines::EvaluateReference(q, {x});
  EXPECT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(got.ok()) << got.status();
  if (!want.ok() || !got.ok()) return 1;
  double err = 0, norm = 0;
  for (int64_t i = 0; i < (*want)[0].NumElements(); ++i) {
    const double a = (*want)[0].data<float>()[i], b = (*got)[0].data<float>()[i];
    err += (a - b) * (a - b);
    norm += a * a;
  }
  return std::sqrt(err / norm);
}

// Each dense layer becomes dense_int8 with its bias (its own input or the add's) and its relu;
// the result stays near the float graph on the inputs calibration saw and on one it did not (the
// ranges over 8 inputs, so that the unseen one's are mostly inside them).
TEST(QuantizeLayersTest, RewritesDenseLayers) {
  const Graph g = Classifier();
  std::vector<double> max_abs(g.values.size(), 0);
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    const std::vector<double> one = Calibrate(g, seed);
    for (size_t v = 0; v < one.size(); ++v) max_abs[v] = std::max(max_abs[v], one[v]);
  }
  absl::StatusOr<Graph> q = QuantizeLayers(g, max_abs, kAll);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(CountOp(*q, "dense"), 0);
  EXPECT_EQ(CountOp(*q, "dense_int8"), 2);
  EXPECT_EQ(CountInt8Layers(*q), 2);
  EXPECT_EQ(CountOp(*q, "add"), 0);
  EXPECT_EQ(CountOp(*q, "relu"), 0);
  std::vector<bool> relu;
  for (const Node& n : q->nodes) {
    if (n.op != "dense_int8") continue;
    relu.push_back(n.attrs.at("relu").get<bool>());
    EXPECT_EQ(q->type(n.inputs[1]).dtype.bits, 8);
    EXPECT_EQ(q->type(n.inputs[2]).shape, (std::vector<int64_t>{q->type(n.outputs[0]).shape[1]}));
  }
  EXPECT_EQ(relu, (std::vector<bool>{true, false}));
  EXPECT_LT(Distance(g, *q, 1), 0.03);
  EXPECT_LT(Distance(g, *q, 9), 0.05);
}

TEST(QuantizeLayersTest, NamesTheInt8OperatorOfEachLayer) {
  EXPECT_EQ(Int8OpOf("conv2d"), "conv2d_int8");
  EXPECT_EQ(Int8OpOf("dense"), "dense_int8");
  EXPECT_EQ(Int8OpOf("matmul"), "");
  EXPECT_TRUE(IsQuantizableLayer("dense_int8"));
  EXPECT_FALSE(IsQuantizableLayer("add"));
}

TEST(QuantizeLayersTest, KeepsWhatIsNotEligible) {
  const Graph g = Folded(16, 1);
  const QuantizeLayersOptions none{.eligible = [](const Graph&, const Node&) { return false; }};
  absl::StatusOr<Graph> q = QuantizeLayers(g, Calibrate(g, 1), none);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(testing::Ops(*q), testing::Ops(g));
}

TEST(QuantizeLayersTest, RefusesRangesOfAnotherGraph) {
  const Graph g = Folded(16, 1);
  absl::StatusOr<Graph> q = QuantizeLayers(g, {1.0, 2.0}, kAll);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("2 calibrated ranges"), std::string::npos) << q.status();
}

}  // namespace
}  // namespace tessel::graph::passes
