// LRN of ranks 3 to 5 with odd and even windows, Softmax and LogSoftmax before opset 13 (the
// input flattened to 2-D at `axis`) and from 13 (one axis), and inference BatchNormalization over
// 2-D to 5-D inputs, InstanceNormalization and LayerNormalization, against values computed here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

// Softmax of x [2, 3, 4] over the groups `group(i)` of elements (same group, same softmax).
std::vector<float> SoftmaxBy(const NDArray& x, const std::function<int64_t(int64_t)>& group,
                             bool log) {
  std::map<int64_t, double> sums, maxes;
  const std::vector<float> v = Values(x);
  for (int64_t i = 0; i < 24; ++i) {
    maxes.try_emplace(group(i), -1e30);
    maxes[group(i)] = std::max(maxes[group(i)], static_cast<double>(v[i]));
  }
  for (int64_t i = 0; i < 24; ++i) sums[group(i)] += std::exp(v[i] - maxes[group(i)]);
  std::vector<float> out;
  for (int64_t i = 0; i < 24; ++i) {
    const double e = v[i] - maxes[group(i)];
    out.push_back(
        static_cast<float>(log ? e - std::log(sums[group(i)]) : std::exp(e) / sums[group(i)]));
  }
  return out;
}

TEST(ConvertNormTest, SoftmaxAxisBeforeAndFromOpset13) {
  const NDArray x = Random({2, 3, 4}, 1);
  for (const std::string op : {"Softmax", "LogSoftmax"}) {
    for (int opset : {11, 13}) {
      ::onnx::ModelProto m = NewModel(opset);
      AddInput(m, "x", {2, 3, 4});
      SetAttr(AddNode(m, op, {"x"}, {"y"}), "axis", int64_t{1});
      AddOutput(m, "y", 3);
      absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
      ASSERT_TRUE(y.ok()) << y.status();
      // Opset 11: one softmax over axes 1 and 2 together (per batch); 13: over axis 1 alone.
      const auto group =
          opset == 11
              ? std::function<int64_t(int64_t)>([](int64_t i) { return i / 12; })
              : std::function<int64_t(int64_t)>([](int64_t i) { return (i / 12) * 4 + i % 4; });
      EXPECT_LT(MaxError((*y)[0], Floats({2, 3, 4}, SoftmaxBy(x, group, op == "LogSoftmax"))), 1e-6)
          << op << " opset " << opset;
    }
  }
}

TEST(ConvertNormTest, SoftmaxDefaultAxes) {
  const NDArray x = Random({2, 3, 4}, 2);
  for (int opset : {11, 13}) {
    ::onnx::ModelProto m = NewModel(opset);
    AddInput(m, "x", {2, 3, 4});
    AddNode(m, "Softmax", {"x"}, {"y"});
    AddOutput(m, "y", 3);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    // Opset 11 defaults to axis 1 (flattening axes 1 and 2), 13 to the last axis.
    const auto group = opset == 11
                           ? std::function<int64_t(int64_t)>([](int64_t i) { return i / 12; })
                           : std::function<int64_t(int64_t)>([](int64_t i) { return i / 4; });
    EXPECT_LT(MaxError((*y)[0], Floats({2, 3, 4}, SoftmaxBy(x, group, false))), 1e-6) << opset;
  }
}

TEST(ConvertNormTest, BatchNormalizationOfAnyRank) {
  const NDArray scale = Random({3}, 3), bias = Random({3}, 4), mean = Random({3}, 5);
  NDArray var = Random({3}, 6);
  for (int64_t i = 0; i < 3; ++i) var.data<float>()[i] = std::abs(var.data<float>()[i]) + 0.5f;
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{4, 3}, {2, 3, 5}, {2, 3, 4, 5}, {2, 3, 2, 2, 2}}) {
    const NDArray x = Random(shape, 7);
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", shape);
    AddInitializer(m, "scale", scale);
    AddInitializer(m, "bias", bias);
    AddInitializer(m, "mean", mean);
    AddInitializer(m, "var", var);
    SetAttr(AddNode(m, "BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}),
            "epsilon", 1e-3f);
    AddOutput(m, "y", static_cast<int>(shape.size()));
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    int64_t inner = 1;
    for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
    std::vector<float> want;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const int64_t ch = (i / inner) % 3;
      want.push_back((x.data<float>()[i] - mean.data<float>()[ch]) /
                         std::sqrt(var.data<float>()[ch] + 1e-3f) * scale.data<float>()[ch] +
                     bias.data<float>()[ch]);
    }
    EXPECT_LT(MaxError((*y)[0], Floats(shape, want)), 1e-5) << shape.size() << "-D";
  }
}

// ONNX's LRN formula, over x of [N, C, positions...] (positions flattened).
std::vector<float> LrnByFormula(const NDArray& x, int64_t n, int64_t c, int64_t positions,
                                int64_t size, double alpha, double beta, double bias) {
  const std::vector<float> v = Values(x);
  std::vector<float> out;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < positions; ++p) {
        double square_sum = 0;
        for (int64_t k = ch - (size - 1) / 2; k <= ch + size / 2; ++k) {
          if (k < 0 || k >= c) continue;
          const double e = v[(b * c + k) * positions + p];
          square_sum += e * e;
        }
        const double e = v[(b * c + ch) * positions + p];
        out.push_back(static_cast<float>(e / std::pow(bias + alpha / size * square_sum, beta)));
      }
    }
  }
  return out;
}

TEST(ConvertNormTest, LrnOddAndEvenWindowsOfAnyRank) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{2, 6, 3, 4}, std::vector<int64_t>{1, 5, 7},
        std::vector<int64_t>{1, 4, 2, 3, 2}}) {
    for (int64_t size : {3, 4}) {
      const NDArray x = Random(shape, 7);
      ::onnx::ModelProto m = NewModel(13);
      AddInput(m, "x", shape);
      auto& n = AddNode(m, "LRN", {"x"}, {"y"});
      SetAttr(n, "size", size);
      SetAttr(n, "alpha", 0.5f);
      SetAttr(n, "bias", 1.5f);
      AddOutput(m, "y", static_cast<int>(shape.size()));
      absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
      ASSERT_TRUE(y.ok()) << y.status();
      int64_t positions = 1;
      for (size_t d = 2; d < shape.size(); ++d) positions *= shape[d];
      EXPECT_LT(MaxError((*y)[0], Floats(shape, LrnByFormula(x, shape[0], shape[1], positions, size,
                                                             0.5, 0.75, 1.5))),
                1e-5)
          << "rank " << shape.size() << " size " << size;
    }
  }
}

// Each of `rows` rows of `inner` elements standardized (biased variance), times scale[g(i)]
// plus bias[g(i)], g the index of element i's scale.
std::vector<float> Standardize(const NDArray& x, int64_t inner, const std::vector<float>& scale,
                               const std::vector<float>& bias,
                               const std::function<int64_t(int64_t row, int64_t i)>& g,
                               double eps) {
  const std::vector<float> v = Values(x);
  std::vector<float> out;
  for (size_t r = 0; r * inner < v.size(); ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < inner; ++i) mean += v[r * inner + i];
    mean /= inner;
    for (int64_t i = 0; i < inner; ++i) var += std::pow(v[r * inner + i] - mean, 2);
    var /= inner;
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t k = g(static_cast<int64_t>(r), i);
      out.push_back(static_cast<float>((v[r * inner + i] - mean) / std::sqrt(var + eps) * scale[k] +
                                       bias[k]));
    }
  }
  return out;
}

TEST(ConvertNormTest, InstanceNormalizationOverTheSpatialAxes) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{2, 3, 4, 5}, std::vector<int64_t>{2, 3, 7},
        std::vector<int64_t>{1, 3, 2, 3, 2}}) {
    const NDArray x = Random(shape, 31), scale = Random({3}, 32), bias = Random({3}, 33);
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", shape);
    AddInitializer(m, "scale", scale);
    AddInitializer(m, "bias", bias);
    SetAttr(AddNode(m, "InstanceNormalization", {"x", "scale", "bias"}, {"y"}, "norm"), "epsilon",
            0.01f);
    AddOutput(m, "y", static_cast<int>(shape.size()));
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    int64_t inner = 1;
    for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
    const std::vector<float> want = Standardize(
        x, inner, Values(scale), Values(bias), [](int64_t row, int64_t) { return row % 3; }, 0.01);
    EXPECT_LT(MaxError((*y)[0], Floats(shape, want)), 1e-5);
  }
}

TEST(ConvertNormTest, LayerNormalizationFromAxisWithAndWithoutBias) {
  const NDArray x = Random({2, 3, 4}, 34), scale = Random({3, 4}, 35), bias = Random({3, 4}, 36);
  for (const bool with_bias : {true, false}) {
    ::onnx::ModelProto m = NewModel(17);
    AddInput(m, "x", {2, 3, 4});
    AddInitializer(m, "scale", scale);
    std::vector<std::string> inputs = {"x", "scale"};
    if (with_bias) {
      AddInitializer(m, "bias", bias);
      inputs.push_back("bias");
    }
    auto& node = AddNode(m, "LayerNormalization", inputs, {"y"}, "ln");
    SetAttr(node, "axis", int64_t{1});
    AddOutput(m, "y", 3);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    const std::vector<float> want = Standardize(
        x, 12, Values(scale), with_bias ? Values(bias) : std::vector<float>(12, 0),
        [](int64_t, int64_t i) { return i; }, 1e-5);
    EXPECT_LT(MaxError((*y)[0], Floats({2, 3, 4}, want)), 1e-5) << with_bias;
  }
}

TEST(ConvertNormTest, LayerNormalizationStatisticsAndAWrongScaleAreRefused) {
  {
    ::onnx::ModelProto m = NewModel(17);
    AddInput(m, "x", {2, 4});
    AddInitializer(m, "scale", Random({4}, 1));
    AddNode(m, "LayerNormalization", {"x", "scale"}, {"y", "mean"}, "ln");
    AddOutput(m, "y", 2);
    AddOutput(m, "mean", 2);
    EXPECT_THAT(std::string(Import(m).status().message()),
                HasSubstr("unsupported ONNX operator 'LayerNormalization' (node 'ln' in "
                          "test.onnx): output 1 (the statistics)"));
  }
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {2, 3, 4});
    AddInitializer(m, "scale", Random({2}, 1));
    AddInitializer(m, "bias", Random({3}, 2));
    AddNode(m, "InstanceNormalization", {"x", "scale", "bias"}, {"y"}, "in");
    AddOutput(m, "y", 3);
    absl::StatusOr<Graph> g = Import(m);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("node 'in' (InstanceNormalization): the scale float32[2] does not "
                          "hold 3 elements"));
  }
}

TEST(ConvertNormTest, TrainingBatchNormalizationIsUnsupported) {
  ::onnx::ModelProto m = NewModel(14);
  AddInput(m, "x", {2, 3, 4, 4});
  for (const char* name : {"s", "b", "m", "v"}) AddInitializer(m, name, Random({3}, 1));
  auto& n = AddNode(m, "BatchNormalization", {"x", "s", "b", "m", "v"},
                    {"y", "running_mean", "running_var"}, "bn");
  SetAttr(n, "training_mode", int64_t{1});
  AddOutput(m, "y", 4);
  EXPECT_THAT(std::string(Import(m).status().message()),
              HasSubstr("unsupported ONNX operator 'BatchNormalization' (node 'bn' in test.onnx): "
                        "attribute 'training_mode' 1"));
}

}  // namespace
}  // namespace tessel::graph::onnx
