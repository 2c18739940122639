// The element-wise operators against values computed here: numpy and legacy (opset < 7)
// broadcasting, the variadic Sum / Mean / Max, Clip before and after opset 11 (attribute and input
// forms, absent bounds, min > max), PRelu per channel and broadcast, the activations, arithmetic
// on known tensors done at import, Pow by known and computed exponents, int64 and float64
// operands, and the types and operators refused.
#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

// f over a [2, 3, 4] and b [3, 1] broadcast.
std::vector<float> Broadcast(const NDArray& a, const NDArray& b, float (*f)(float, float)) {
  std::vector<float> out;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) {
        out.push_back(f(a.data<float>()[(i * 3 + j) * 4 + k], b.data<float>()[j]));
      }
  return out;
}

TEST(ConvertElementwiseTest, BinariesBroadcastAsNumpy) {
  const NDArray a = Random({2, 3, 4}, 1), b = Random({3, 1}, 2);
  const std::vector<std::pair<std::string, float (*)(float, float)>> ops = {
      {"Add", [](float x, float y) { return x + y; }},
      {"Sub", [](float x, float y) { return x - y; }},
      {"Mul", [](float x, float y) { return x * y; }},
      {"Div", [](float x, float y) { return x / y; }},
      {"Max", [](float x, float y) { return std::max(x, y); }},
      {"Min", [](float x, float y) { return std::min(x, y); }},
  };
  for (const auto& [op, f] : ops) {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "a", {2, 3, 4});
    AddInput(m, "b", {3, 1});
    AddNode(m, op, {"a", "b"}, {"y"});
    AddOutput(m, "y", 3);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {a, b});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_LT(MaxError((*y)[0], Floats({2, 3, 4}, Broadcast(a, b, f))), 1e-6) << op;
  }
}

TEST(ConvertElementwiseTest, LegacyBroadcastAlignsAtAxis) {
  // Opset 6: B [3] with axis 1 lines up with A's axis 1 of [2, 3, 4] (numpy would align it with
  // the last axis and fail).
  const NDArray a = Random({2, 3, 4}, 3), b = Random({3}, 4);
  ::onnx::ModelProto m = NewModel(6);
  AddInput(m, "a", {2, 3, 4});
  AddInitializer(m, "b", b);
  auto& n = AddNode(m, "Add", {"a", "b"}, {"y"});
  SetAttr(n, "broadcast", int64_t{1});
  SetAttr(n, "axis", int64_t{1});
  AddOutput(m, "y", 3);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {a});
  ASSERT_TRUE(y.ok()) << y.status();
  const NDArray b31 = Floats({3, 1}, Values(b));
  EXPECT_LT(MaxError((*y)[0],
                     Floats({2, 3, 4}, Broadcast(a, b31, [](float x, float v) { return x + v; }))),
            1e-6);
}

TEST(ConvertElementwiseTest, VariadicSumMeanMax) {
  const NDArray a = Random({2, 3}, 5), b = Random({2, 3}, 6), c = Random({3}, 7);
  for (const std::string op : {"Sum", "Mean", "Max"}) {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "a", {2, 3});
    AddInput(m, "b", {2, 3});
    AddInitializer(m, "c", c);
    AddNode(m, op, {"a", "b", "c"}, {"y"}, "n");
    AddOutput(m, "y", 2);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {a, b});
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<float> want;
    for (int64_t i = 0; i < 6; ++i) {
      const float x = a.data<float>()[i], v = b.data<float>()[i], w = c.data<float>()[i % 3];
      want.push_back(op == "Sum"    ? x + v + w
                     : op == "Mean" ? (x + v + w) / 3
                                    : std::max({x, v, w}));
    }
    EXPECT_LT(MaxError((*y)[0], Floats({2, 3}, want)), 1e-6) << op;
  }
}

// Clip of a row holding -inf, a negative, a positive and +inf.
std::vector<float> ClipOf(const ::onnx::ModelProto& m) {
  const float inf = std::numeric_limits<float>::infinity();
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {Floats({4}, {-inf, -2.0f, 3.0f, inf})});
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? Values((*y)[0]) : std::vector<float>();
}

TEST(ConvertElementwiseTest, ClipForms) {
  const float inf = std::numeric_limits<float>::infinity();
  const float lowest = std::numeric_limits<float>::lowest();
  {
    // Opset 6: min and max attributes; an absent min is the lowest float, which clamps -inf.
    ::onnx::ModelProto m = NewModel(6);
    AddInput(m, "x", {4});
    SetAttr(AddNode(m, "Clip", {"x"}, {"y"}), "max", 1.0f);
    AddOutput(m, "y", 1);
    EXPECT_EQ(ClipOf(m), (std::vector<float>{lowest, -2.0f, 1.0f, 1.0f}));
  }
  {
    // Opset 13: bounds as inputs; an absent one does not clip.
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {4});
    AddInitializer(m, "hi", Floats({}, {1.0f}));
    AddNode(m, "Clip", {"x", "", "hi"}, {"y"});
    AddOutput(m, "y", 1);
    EXPECT_EQ(ClipOf(m), (std::vector<float>{-inf, -2.0f, 1.0f, 1.0f}));
  }
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {4});
    AddInitializer(m, "lo", Floats({}, {-1.0f}));
    AddInitializer(m, "hi", Floats({}, {6.0f}));
    AddNode(m, "Clip", {"x", "lo", "hi"}, {"y"});
    AddOutput(m, "y", 1);
    EXPECT_EQ(ClipOf(m), (std::vector<float>{-1.0f, -1.0f, 3.0f, 6.0f}));
    EXPECT_THAT(ToText(*Import(m)), HasSubstr("clip("));
  }
  {
    // min > max: ONNX gives max everywhere.
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {4});
    AddInitializer(m, "lo", Floats({}, {2.0f}));
    AddInitializer(m, "hi", Floats({}, {1.0f}));
    AddNode(m, "Clip", {"x", "lo", "hi"}, {"y"});
    AddOutput(m, "y", 1);
    EXPECT_EQ(ClipOf(m), (std::vector<float>{1.0f, 1.0f, 1.0f, 1.0f}));
  }
}

TEST(ConvertElementwiseTest, PReluPerChannelAndBroadcast) {
  const NDArray x = Random({2, 3, 4}, 8), slope = Random({3}, 9);
  for (int opset : {6, 9}) {
    ::onnx::ModelProto m = NewModel(opset);
    AddInput(m, "x", {2, 3, 4});
    // Opset 6 reads a [C] slope per channel; opset 9 broadcasts, so it takes [3, 1].
    AddInitializer(m, "s", opset == 6 ? slope : Floats({3, 1}, Values(slope)));
    AddNode(m, "PRelu", {"x", "s"}, {"y"});
    AddOutput(m, "y", 3);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<float> want;
    for (int64_t i = 0; i < 24; ++i) {
      const float v = x.data<float>()[i];
      want.push_back(v >= 0 ? v : v * slope.data<float>()[(i / 4) % 3]);
    }
    EXPECT_EQ(MaxError((*y)[0], Floats({2, 3, 4}, want)), 0) << "opset " << opset;
  }
}

TEST(ConvertElementwiseTest, Activations) {
  const NDArray x = Random({3, 5}, 10);
  const std::vector<std::pair<std::string, std::function<double(double)>>> ops = {
      {"Relu", [](double v) { return v > 0 ? v : 0.0; }},
      {"Sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
      {"Tanh", [](double v) { return std::tanh(v); }},
      {"LeakyRelu", [](double v) { return v > 0 ? v : 0.25 * v; }},
      {"Neg", [](double v) { return -v; }},
      {"Abs", [](double v) { return std::abs(v); }},
      {"Exp", [](double v) { return std::exp(v); }},
      {"Log", [](double v) { return std::log(std::abs(v) + 0.1); }},
      {"Sqrt", [](double v) { return std::sqrt(std::abs(v) + 0.1); }},
      {"Reciprocal", [](double v) { return 1 / (std::abs(v) + 0.1); }},
      {"Floor", [](double v) { return std::floor(4 * v); }},
      {"Ceil", [](double v) { return std::ceil(4 * v); }},
      {"Erf", [](double v) { return std::erf(2 * v); }},
      {"Elu", [](double v) { return v > 0 ? v : 0.5 * (std::exp(v) - 1); }},
      {"Selu",
       [](double v) {
         return 1.0507009873554805 * (v > 0 ? v : 1.6732632423543772 * (std::exp(v) - 1));
       }},
      {"Softplus", [](double v) { return std::log1p(std::exp(v)); }},
      {"Softsign", [](double v) { return v / (1 + std::abs(v)); }},
      {"HardSigmoid", [](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); }},
      {"HardSwish", [](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }},
      {"ThresholdedRelu", [](double v) { return v > 0.25 ? v : 0.0; }},
  };
  for (const auto& [op, f] : ops) {
    ::onnx::ModelProto m = NewModel(op == "HardSwish" ? 14 : 13);
    AddInput(m, "x", {3, 5});
    // Log, Sqrt and Reciprocal read |x| + 0.1; Floor and Ceil 4x, Erf 2x (more of each range).
    std::string in = "x";
    if (op == "Log" || op == "Sqrt" || op == "Reciprocal") {
      AddNode(m, "Abs", {"x"}, {"ax"});
      AddInitializer(m, "tenth", Floats({1}, {0.1f}));
      AddNode(m, "Add", {"ax", "tenth"}, {"pos"});
      in = "pos";
    } else if (op == "Floor" || op == "Ceil" || op == "Erf") {
      AddInitializer(m, "k", Floats({1}, {op == "Erf" ? 2.0f : 4.0f}));
      AddNode(m, "Mul", {"x", "k"}, {"scaled"});
      in = "scaled";
    }
    auto& n = AddNode(m, op, {in}, {"y"});
    if (op == "LeakyRelu" || op == "ThresholdedRelu") SetAttr(n, "alpha", 0.25f);
    if (op == "Elu") SetAttr(n, "alpha", 0.5f);
    AddOutput(m, "y", 2);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << op << ": " << y.status();
    std::vector<float> want;
    for (float v : Values(x)) want.push_back(static_cast<float>(f(v)));
    EXPECT_LT(MaxError((*y)[0], Floats({3, 5}, want)), 2e-6) << op;
  }
}

TEST(ConvertElementwiseTest, PowByKnownAndComputedExponents) {
  const NDArray x = Random({2, 6}, 11), e = Random({6}, 12);
  std::vector<float> base;
  for (float v : Values(x)) base.push_back(std::abs(v) + 0.5f);
  // Exponents 2 and 0.5 (as LayerNorm exports them, int64 and float), 3, and a computed one.
  for (const std::string exponent : {"2", "0.5", "3", "computed"}) {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {2, 6});
    std::vector<float> powers(6, exponent == "computed" ? 0.0f : std::stof(exponent));
    if (exponent == "computed") {
      AddInput(m, "e", {6});
      for (int i = 0; i < 6; ++i) powers[i] = e.data<float>()[i];
    } else if (exponent == "2") {
      AddInitializer(m, "e", Int64s({}, {2}));
    } else {
      AddInitializer(m, "e", Floats({}, {powers[0]}));
    }
    AddNode(m, "Pow", {"x", "e"}, {"y"});
    AddOutput(m, "y", 2);
    const NDArray xs = Floats({2, 6}, base);
    absl::StatusOr<std::vector<NDArray>> y =
        exponent == "computed" ? Evaluate(m, {xs, e}) : Evaluate(m, {xs});
    ASSERT_TRUE(y.ok()) << exponent << ": " << y.status();
    std::vector<float> want;
    for (size_t i = 0; i < base.size(); ++i) want.push_back(std::pow(base[i], powers[i % 6]));
    EXPECT_LT(MaxError((*y)[0], Floats({2, 6}, want)), 1e-5) << exponent;
  }
}

TEST(ConvertElementwiseTest, KnownOperandsAreComputedAtImport) {
  // (c1 * c2 + c3) on constants leaves no node: the output is a constant.
  ::onnx::ModelProto m = NewModel(13);
  AddInitializer(m, "c1", Int64s({2}, {3, 4}));
  AddInitializer(m, "c2", Int64s({}, {5}));
  AddInitializer(m, "c3", Int64s({2}, {-1, 1}));
  AddNode(m, "Mul", {"c1", "c2"}, {"p"});
  AddNode(m, "Add", {"p", "c3"}, {"y"});
  AddOutput(m, "y", 1, ::onnx::TensorProto::INT64);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->nodes.empty());
  const Value& out = g->value(g->outputs[0]);
  ASSERT_EQ(out.kind, ValueKind::kConstant);
  EXPECT_EQ(std::vector<int64_t>(out.data.data<int64_t>(), out.data.data<int64_t>() + 2),
            (std::vector<int64_t>{14, 21}));
}

// ONNX's other arithmetic types stay as they are: int64 and float64 operands, computed and known.
TEST(ConvertElementwiseTest, Int64AndFloat64OperandsKeepTheirType) {
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "a", {2, 3}, ::onnx::TensorProto::INT64);
    AddInitializer(m, "b", Int64s({3}, {10, -20, 3000000000}));
    AddNode(m, "Add", {"a", "b"}, {"y"}, "sum");
    AddOutput(m, "y", 2, ::onnx::TensorProto::INT64);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {Int64s({2, 3}, {1, 2, 3, 4, 5, 6})});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ((*y)[0].shape(), (std::vector<int64_t>{2, 3}));
    const int64_t* got = (*y)[0].data<int64_t>();
    EXPECT_EQ(std::vector<int64_t>(got, got + 6),
              (std::vector<int64_t>{11, -18, 3000000003, 14, -15, 3000000006}));
  }
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "a", {3}, ::onnx::TensorProto::DOUBLE);
    AddInput(m, "b", {2, 1}, ::onnx::TensorProto::DOUBLE);
    AddNode(m, "Mul", {"a", "b"}, {"y"}, "product");
    AddOutput(m, "y", 2, ::onnx::TensorProto::DOUBLE);
    NDArray a = NDArray::Empty({3}, DLDataType{kDLFloat, 64, 1});
    NDArray b = NDArray::Empty({2, 1}, DLDataType{kDLFloat, 64, 1});
    const double av[] = {1.0 / 3, 2, 1e-300}, bv[] = {3, 1e10};
    std::copy(std::begin(av), std::end(av), a.data<double>());
    std::copy(std::begin(bv), std::end(bv), b.data<double>());
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {a, b});
    ASSERT_TRUE(y.ok()) << y.status();
    const double* got = (*y)[0].data<double>();
    for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(got[i], av[i % 3] * bv[i / 3]) << i;
  }
}

TEST(ConvertElementwiseTest, IntegerDivisionAndNonFloat32PowerAreUnsupported) {
  for (const auto& [op, type, name] :
       {std::tuple<std::string, int, std::string>{"Div", ::onnx::TensorProto::INT64, "int64"},
        {"Pow", ::onnx::TensorProto::DOUBLE, "float64"}}) {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "a", {2}, type);
    AddInput(m, "b", {2}, type);
    AddNode(m, op, {"a", "b"}, {"y"}, "f");
    AddOutput(m, "y", 1, type);
    absl::StatusOr<Graph> g = Import(m);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented) << op;
    EXPECT_THAT(
        std::string(g.status().message()),
        HasSubstr(absl::StrCat("unsupported ONNX operator '", op,
                               "' (node 'f' in test.onnx): operands of element type ", name)));
  }
  ::onnx::ModelProto m = NewModel(14);  // Add of int8 from opset 14
  AddInput(m, "a", {2}, ::onnx::TensorProto::INT8);
  AddInput(m, "b", {2}, ::onnx::TensorProto::INT8);
  AddNode(m, "Add", {"a", "b"}, {"y"}, "sum");
  AddOutput(m, "y", 1, ::onnx::TensorProto::INT8);
  EXPECT_THAT(std::string(Import(m).status().message()),
              HasSubstr("unsupported ONNX operator 'Add' (node 'sum' in test.onnx): input 0 ('a') "
                        "has element type int8; Tessel's operators compute float32"));
}

}  // namespace
}  // namespace tessel::graph::onnx
