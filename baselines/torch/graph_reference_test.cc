#include "baselines/torch/graph_reference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/graph/builder.h"

namespace tessel::baselines {
namespace {

using graph::Builder;
using graph::Graph;
using graph::kFloat32;
using graph::ValueId;
using ::testing::HasSubstr;

runtime::NDArray Filled(std::vector<int64_t> shape, float start, float step) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), kFloat32);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = start + step * float(i % 7);
  return a;
}

// relu(x @ w^T + b) + x2, computed by hand.
TEST(GraphReferenceTest, DenseReluAddMatchesHandComputed) {
  const int m = 2, k = 3, n = 4;
  runtime::NDArray w = Filled({n, k}, -0.5f, 0.25f);
  runtime::NDArray bias = Filled({n}, -0.3f, 0.1f);
  Builder b;
  ValueId x = b.Input("x", {{m, k}});
  ValueId x2 = b.Input("x2", {{m, n}});
  ValueId y = b.Op("dense", {x, b.Constant("w", w), b.Constant("b", bias)});
  y = b.Op("relu", {y});
  y = b.Op("add", {y, x2});
  b.Output(y);
  absl::StatusOr<Graph> g = b.Finish();
  ASSERT_TRUE(g.ok()) << g.status();

  runtime::NDArray xv = Filled({m, k}, -1.0f, 0.4f), x2v = Filled({m, n}, 0.5f, -0.2f);
  absl::StatusOr<std::vector<runtime::NDArray>> out = EvaluateReference(*g, {xv, x2v});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = bias.data<float>()[j];
      for (int r = 0; r < k; ++r) acc += xv.data<float>()[i * k + r] * w.data<float>()[j * k + r];
      const float want = std::max(acc, 0.0f) + x2v.data<float>()[i * n + j];
      EXPECT_NEAR((*out)[0].data<float>()[i * n + j], want, 1e-5) << i << "," << j;
    }
  }
}

TEST(GraphReferenceTest, InputsAreChecked) {
  Builder b;
  b.Output(b.Op("relu", {b.Input("x", {{2, 3}})}));
  absl::StatusOr<Graph> g = b.Finish();
  ASSERT_TRUE(g.ok());
  EXPECT_THAT(std::string(EvaluateReference(*g, {}).status().message()),
              HasSubstr("takes 1 inputs, got 0"));
  EXPECT_THAT(std::string(EvaluateReference(*g, {Filled({3, 2}, 0, 1)}).status().message()),
              HasSubstr("input 'x' must be float32[2, 3], got float32[3, 2]"));
}

}  // namespace
}  // namespace tessel::baselines
