#include "compiler/graph/passes/quantize_convs.h"

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

const QuantizeConvsOptions kAll{.eligible = [](const Graph&, const Node&) { return true; }};

Graph Folded(int64_t c, int blocks) {
  absl::StatusOr<Graph> g = FoldBatchNorm(testing::ResNetBlocks(c, blocks, true, 3));
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

// Each block's two convolutions become int8 ones with their bias (and the first its relu);
// the residual add and the last relu stay float; a quantized value feeds both convolutions
// that read it through one quantize.
TEST(QuantizeConvsTest, RewritesEachConvolutionChain) {
  const Graph g = Folded(16, 2);
  absl::StatusOr<Graph> q = QuantizeConvs(g, Calibrate(g, 1), kAll);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(CountOp(*q, "conv2d"), 0);
  EXPECT_EQ(CountInt8Convs(*q), 4);
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
TEST(QuantizeConvsTest, StaysCloseToTheFloatGraph) {
  const Graph g = Folded(32, 2);
  absl::StatusOr<Graph> q = QuantizeConvs(g, Calibrate(g, 1), kAll);
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

TEST(QuantizeConvsTest, KeepsWhatIsNotEligible) {
  const Graph g = Folded(16, 1);
  const QuantizeConvsOptions none{.eligible = [](const Graph&, const Node&) { return false; }};
  absl::StatusOr<Graph> q = QuantizeConvs(g, Calibrate(g, 1), none);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(testing::Ops(*q), testing::Ops(g));
}

TEST(QuantizeConvsTest, RefusesRangesOfAnotherGraph) {
  const Graph g = Folded(16, 1);
  absl::StatusOr<Graph> q = QuantizeConvs(g, {1.0, 2.0}, kAll);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("2 calibrated ranges"), std::string::npos) << q.status();
}

}  // namespace
}  // namespace tessel::graph::passes
