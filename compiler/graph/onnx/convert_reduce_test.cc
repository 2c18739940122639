// The Reduce* operators against values computed here: axes as an attribute (opset 11) and as an
// input (ReduceSum from 13; the others take it from opset 18, which the ONNX checker here does not
// know yet), contiguous and scattered axes with and without
// keepdims, no axes (every axis, or none with noop_with_empty_axes), and what is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

// The reduction of x [2, 3, 4] over `axes` (ascending): f folds the group's values.
std::vector<float> ReduceBy(const NDArray& x, const std::vector<int64_t>& axes,
                            const std::function<double(const std::vector<double>&)>& f) {
  std::map<int64_t, std::vector<double>> groups;
  const std::vector<float> v = Values(x);
  const int64_t dims[3] = {2, 3, 4};
  for (int64_t i = 0; i < 24; ++i) {
    const int64_t index[3] = {i / 12, i / 4 % 3, i % 4};
    int64_t key = 0;
    for (int d = 0; d < 3; ++d) {
      const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
      key = key * dims[d] + (reduced ? 0 : index[d]);
    }
    groups[key].push_back(v[i]);
  }
  std::vector<float> out;
  for (const auto& [key, values] : groups) out.push_back(static_cast<float>(f(values)));
  return out;
}

double Sum(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e;
  return s;
}

TEST(ConvertReduceTest, EveryOperatorOverContiguousAndScatteredAxes) {
  // Positive inputs in [0.5, 1.5): log_sum has a logarithm to take, l1 is then the sum.
  std::vector<float> positive;
  for (float v : Values(Random({2, 3, 4}, 3))) positive.push_back(std::abs(v) * 0.5f + 0.5f);
  const NDArray x = Floats({2, 3, 4}, positive);
  const std::map<std::string, std::function<double(const std::vector<double>&)>> ops = {
      {"ReduceSum", Sum},
      {"ReduceMean", [](const std::vector<double>& v) { return Sum(v) / v.size(); }},
      {"ReduceMax",
       [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }},
      {"ReduceMin",
       [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }},
      {"ReduceProd",
       [](const std::vector<double>& v) {
         double p = 1;
         for (double e : v) p *= e;
         return p;
       }},
      {"ReduceL1", Sum},  // the inputs are positive
      {"ReduceL2",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double e : v) s += e * e;
         return std::sqrt(s);
       }},
      {"ReduceSumSquare",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double e : v) s += e * e;
         return s;
       }},
      {"ReduceLogSum", [](const std::vector<double>& v) { return std::log(Sum(v)); }},
      {"ReduceLogSumExp",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double e : v) s += std::exp(e);
         return std::log(s);
       }},
  };
  for (const auto& [op, f] : ops) {
    for (const std::vector<int64_t>& axes :
         {std::vector<int64_t>{2}, std::vector<int64_t>{0, 1}, std::vector<int64_t>{0, 2}}) {
      for (int64_t keepdims : {0, 1}) {
        for (int opset : {11, 13}) {
          const bool as_input = opset == 13 && op == "ReduceSum";
          ::onnx::ModelProto m = NewModel(opset);
          AddInput(m, "x", {2, 3, 4});
          std::vector<std::string> inputs = {"x"};
          if (as_input) {
            AddInitializer(m, "axes", Int64s({static_cast<int64_t>(axes.size())}, axes));
            inputs.push_back("axes");
          }
          auto& n = AddNode(m, op, inputs, {"y"});
          if (!as_input) SetAttr(n, "axes", axes);
          SetAttr(n, "keepdims", keepdims);
          AddOutput(m, "y", keepdims != 0 ? 3 : 3 - static_cast<int>(axes.size()));
          absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
          const std::string what = op + " axes " + std::to_string(axes.front()) + ".." +
                                   std::to_string(axes.back()) + " keepdims " +
                                   std::to_string(keepdims) + " opset " + std::to_string(opset);
          ASSERT_TRUE(y.ok()) << what << ": " << y.status();
          std::vector<int64_t> shape;
          for (int64_t d = 0; d < 3; ++d) {
            const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
            if (!reduced || keepdims != 0)
              shape.push_back(reduced ? 1 : std::vector<int64_t>{2, 3, 4}[d]);
          }
          EXPECT_EQ((*y)[0].shape(), shape) << what;
          EXPECT_LT(MaxError((*y)[0], Floats(shape, ReduceBy(x, axes, f))), 1e-5) << what;
        }
      }
    }
  }
}

TEST(ConvertReduceTest, NoAxesReduceEverythingOrNothing) {
  const NDArray x = Random({2, 3, 4}, 4);
  ::onnx::ModelProto all = NewModel(13);
  AddInput(all, "x", {2, 3, 4});
  AddNode(all, "ReduceMean", {"x"}, {"y"});
  AddOutput(all, "y", 3);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(all, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> values = Values(x);
  const double mean = Sum(std::vector<double>(values.begin(), values.end())) / 24;
  EXPECT_LT(MaxError((*y)[0], Floats({1, 1, 1}, {static_cast<float>(mean)})), 1e-6);

  ::onnx::ModelProto none = NewModel(13);
  AddInput(none, "x", {2, 3, 4});
  SetAttr(AddNode(none, "ReduceSum", {"x"}, {"y"}), "noop_with_empty_axes", int64_t{1});
  AddOutput(none, "y", 3);
  y = Evaluate(none, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(MaxError((*y)[0], x), 0);
}

TEST(ConvertReduceTest, RefusedForms) {
  // Every axis without keepdims: a rank-0 result.
  ::onnx::ModelProto scalar = NewModel(13);
  AddInput(scalar, "x", {2, 3});
  SetAttr(AddNode(scalar, "ReduceSum", {"x"}, {"y"}, "total"), "keepdims", int64_t{0});
  AddOutput(scalar, "y", 0);
  absl::StatusOr<Graph> g = Import(scalar);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("unsupported ONNX operator 'ReduceSum' (node 'total' in test.onnx): a "
                        "rank-0 result"));
  // Axes computed in the graph.
  ::onnx::ModelProto computed = NewModel(13);
  AddInput(computed, "x", {2, 3});
  AddInput(computed, "axes", {1}, ::onnx::TensorProto::INT64);
  AddNode(computed, "ReduceSum", {"x", "axes"}, {"y"}, "sum");
  AddOutput(computed, "y", 2);
  g = Import(computed);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("input 'axes' computed in the graph"));
  // An axis out of range.
  ::onnx::ModelProto bad = NewModel(13);
  AddInput(bad, "x", {2, 3});
  SetAttr(AddNode(bad, "ReduceMean", {"x"}, {"y"}, "mean"), "axes", std::vector<int64_t>{2});
  AddOutput(bad, "y", 2);
  g = Import(bad);
  EXPECT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("mean"));
}

}  // namespace
}  // namespace tessel::graph::onnx
