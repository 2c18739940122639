// Data movement and the shape arithmetic evaluated at import: Reshape (0 and -1), Flatten,
// Transpose, Squeeze / Unsqueeze (attribute and input forms), Concat, Pad (attribute and input
// forms; constant, edge and reflect), Tile, Identity and Dropout (no node), the Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape subgraph PyTorch exports around a flatten, ConstantOfShape
// weights, and Cast of computed tensors (a cast node) with its unsupported types.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <utility>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

// The model's one output on x, with its graph.
struct Result {
  Graph graph;
  NDArray y;
};

Result RunOne(const ::onnx::ModelProto& m, const NDArray& x) {
  absl::StatusOr<Graph> g = Import(m);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return {};
  return {*std::move(g), (*y)[0]};
}

TEST(ConvertShapeTest, ReshapeCopiesZerosAndInfersMinusOne) {
  const NDArray x = Random({2, 3, 4}, 1);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3, 4});
  AddInitializer(m, "shape", Int64s({3}, {0, -1, 2}));
  AddNode(m, "Reshape", {"x", "shape"}, {"y"});
  AddOutput(m, "y", 3);
  Result r = RunOne(m, x);
  EXPECT_EQ(MaxError(r.y, Floats({2, 6, 2}, Values(x))), 0);
}

TEST(ConvertShapeTest, FlattenTransposeSqueezeUnsqueeze) {
  const NDArray x = Random({2, 1, 3, 4}, 2);
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {2, 1, 3, 4});
    SetAttr(AddNode(m, "Flatten", {"x"}, {"y"}), "axis", int64_t{-1});
    AddOutput(m, "y", 2);
    EXPECT_EQ(MaxError(RunOne(m, x).y, Floats({6, 4}, Values(x))), 0);
  }
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {2, 1, 3, 4});
    SetAttr(AddNode(m, "Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{3, 0, 2, 1});
    AddOutput(m, "y", 4);
    std::vector<float> want;
    for (int64_t l = 0; l < 4; ++l)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t k = 0; k < 3; ++k) want.push_back(x.data<float>()[(i * 3 + k) * 4 + l]);
    EXPECT_EQ(MaxError(RunOne(m, x).y, Floats({4, 2, 3, 1}, want)), 0);
  }
  for (int opset : {11, 13}) {
    ::onnx::ModelProto m = NewModel(opset);
    AddInput(m, "x", {2, 1, 3, 4});
    if (opset == 11) {
      SetAttr(AddNode(m, "Squeeze", {"x"}, {"s"}), "axes", std::vector<int64_t>{1});
      SetAttr(AddNode(m, "Unsqueeze", {"s"}, {"y"}), "axes", std::vector<int64_t>{0, -1});
    } else {
      AddInitializer(m, "sq", Int64s({1}, {1}));
      AddInitializer(m, "unsq", Int64s({2}, {0, -1}));
      AddNode(m, "Squeeze", {"x", "sq"}, {"s"});
      AddNode(m, "Unsqueeze", {"s", "unsq"}, {"y"});
    }
    AddOutput(m, "y", 5);
    Result r = RunOne(m, x);
    EXPECT_EQ(MaxError(r.y, Floats({1, 2, 3, 4, 1}, Values(x))), 0) << opset;
  }
}

TEST(ConvertShapeTest, ConcatOfComputedAndKnownTensors) {
  const NDArray x = Random({2, 3}, 3), k = Random({2, 2}, 4);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3});
  AddInitializer(m, "k", k);
  SetAttr(AddNode(m, "Concat", {"x", "k"}, {"y"}), "axis", int64_t{-1});
  AddOutput(m, "y", 2);
  std::vector<float> want;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) want.push_back(x.data<float>()[i * 3 + j]);
    for (int64_t j = 0; j < 2; ++j) want.push_back(k.data<float>()[i * 2 + j]);
  }
  EXPECT_EQ(MaxError(RunOne(m, x).y, Floats({2, 5}, want)), 0);
}

TEST(ConvertShapeTest, PadAttributeAndInputForms) {
  const NDArray x = Random({1, 2, 2}, 5);
  // pads: axis 1 one before, axis 2 two after; value 7.
  std::vector<float> want;
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t w = 0; w < 4; ++w) {
      want.push_back(c >= 1 && w < 2 ? x.data<float>()[(c - 1) * 2 + w] : 7.0f);
    }
  for (int opset : {2, 13}) {
    ::onnx::ModelProto m = NewModel(opset);
    AddInput(m, "x", {1, 2, 2});
    const std::vector<int64_t> pads = {0, 1, 0, 0, 0, 2};
    if (opset == 2) {
      auto& n = AddNode(m, "Pad", {"x"}, {"y"});
      SetAttr(n, "pads", pads);
      SetAttr(n, "value", 7.0f);
    } else {
      AddInitializer(m, "pads", Int64s({6}, pads));
      AddInitializer(m, "value", Floats({}, {7.0f}));
      AddNode(m, "Pad", {"x", "pads", "value"}, {"y"});
    }
    AddOutput(m, "y", 3);
    EXPECT_EQ(MaxError(RunOne(m, x).y, Floats({1, 3, 4}, want)), 0) << opset;
  }
  // Reflect pads as large as the extent, and the mode opset 19 added, are refused.
  for (const std::string mode : {"reflect", "wrap"}) {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {1, 2, 2});
    AddInitializer(m, "pads", Int64s({6}, {0, 1, 0, 0, 0, 2}));
    SetAttr(AddNode(m, "Pad", {"x", "pads"}, {"y"}, "pad"), "mode", mode);
    AddOutput(m, "y", 3);
    EXPECT_THAT(std::string(Import(m).status().message()),
                HasSubstr(mode == "wrap" ? "unsupported ONNX operator 'Pad' (node 'pad' in "
                                           "test.onnx): attribute 'mode' 'wrap'"
                                         : "reflect pads [0, 1, 0, 0, 0, 2] not below the "
                                           "input's extents [1, 2, 2]"));
  }
}

TEST(ConvertShapeTest, PadEdgeAndReflect) {
  const NDArray x = Random({1, 3, 4}, 8);
  const std::vector<float> v = Values(x);
  for (const std::string mode : {"edge", "reflect"}) {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {1, 3, 4});
    AddInitializer(m, "pads", Int64s({6}, {0, 1, 2, 0, 2, 1}));
    SetAttr(AddNode(m, "Pad", {"x", "pads"}, {"y"}), "mode", mode);
    AddOutput(m, "y", 3);
    // The source of output position i of a dimension of extent n padded by `before`.
    auto source = [&](int64_t i, int64_t before, int64_t n) {
      const int64_t j = i - before;
      if (mode == "edge") return std::min(std::max<int64_t>(j, 0), n - 1);
      return j < 0 ? -j : j >= n ? 2 * (n - 1) - j : j;
    };
    std::vector<float> want;
    for (int64_t r = 0; r < 6; ++r) {
      for (int64_t c = 0; c < 7; ++c) want.push_back(v[source(r, 1, 3) * 4 + source(c, 2, 4)]);
    }
    EXPECT_EQ(MaxError(RunOne(m, x).y, Floats({1, 6, 7}, want)), 0) << mode;
  }
}

TEST(ConvertShapeTest, TileRepeatsEachAxis) {
  const NDArray x = Random({2, 3}, 6);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3});
  AddInitializer(m, "reps", Int64s({2}, {2, 3}));
  AddNode(m, "Tile", {"x", "reps"}, {"y"});
  AddOutput(m, "y", 2);
  std::vector<float> want;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 9; ++j) want.push_back(x.data<float>()[(i % 2) * 3 + j % 3]);
  EXPECT_EQ(MaxError(RunOne(m, x).y, Floats({4, 9}, want)), 0);
}

TEST(ConvertShapeTest, IdentityAndDropoutLeaveNoNode) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3});
  AddNode(m, "Identity", {"x"}, {"a"});
  AddNode(m, "Dropout", {"a"}, {"b", "mask"});
  AddNode(m, "Relu", {"b"}, {"y"}, "relu");
  AddOutput(m, "y", 2);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].op, "relu");
  EXPECT_EQ(g->nodes[0].inputs[0], g->inputs[0]);
}

// x.view(x.size(0), -1) as PyTorch exports it: the target shape computed from Shape(x).
TEST(ConvertShapeTest, PyTorchFlattenSubgraphBecomesOneReshape) {
  const NDArray x = Random({2, 3, 2, 2}, 7);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3, 2, 2});
  AddNode(m, "Shape", {"x"}, {"shape"});
  SetAttr(AddNode(m, "Constant", {}, {"zero"}), "value", Int64s({}, {0}));
  AddNode(m, "Gather", {"shape", "zero"}, {"batch"});
  AddInitializer(m, "axes", Int64s({1}, {0}));
  AddNode(m, "Unsqueeze", {"batch", "axes"}, {"batch_1d"});
  AddInitializer(m, "minus_one", Int64s({1}, {-1}));
  SetAttr(AddNode(m, "Concat", {"batch_1d", "minus_one"}, {"target"}), "axis", int64_t{0});
  AddNode(m, "Reshape", {"x", "target"}, {"y"}, "flatten");
  AddOutput(m, "y", 2);
  Result r = RunOne(m, x);
  ASSERT_EQ(r.graph.nodes.size(), 1u);
  EXPECT_EQ(r.graph.nodes[0].op, "reshape");
  EXPECT_EQ(r.graph.nodes[0].name, "flatten");
  EXPECT_EQ(MaxError(r.y, Floats({2, 12}, Values(x))), 0);
}

// Comparisons, Where, Cast and Range on known tensors are computed at import: here they give the
// target shape [2, -1] of a reshape.
TEST(ConvertShapeTest, KnownShapeArithmetic) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3, 2});
  AddNode(m, "Shape", {"x"}, {"shape"});  // [2, 3, 2]
  AddInitializer(m, "three", Int64s({}, {3}));
  AddNode(m, "Equal", {"shape", "three"}, {"is_three"});  // [F, T, F]
  AddInitializer(m, "minus_one", Int64s({}, {-1}));
  AddNode(m, "Where", {"is_three", "minus_one", "shape"}, {"w"});  // [2, -1, 2]
  AddInitializer(m, "start", Int64s({}, {0}));
  AddInitializer(m, "limit", Int64s({}, {2}));
  AddInitializer(m, "delta", Int64s({}, {1}));
  AddNode(m, "Range", {"start", "limit", "delta"}, {"first_two"});  // [0, 1]
  AddNode(m, "Gather", {"w", "first_two"}, {"target"});             // [2, -1]
  SetAttr(AddNode(m, "Cast", {"target"}, {"target_f"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  SetAttr(AddNode(m, "Cast", {"target_f"}, {"target_i"}), "to",
          int64_t{::onnx::TensorProto::INT64});
  AddNode(m, "Reshape", {"x", "target_i"}, {"y"}, "reshape");
  AddOutput(m, "y", 2);
  const NDArray x = Random({2, 3, 2}, 9);
  Result r = RunOne(m, x);
  ASSERT_EQ(r.graph.nodes.size(), 1u);
  EXPECT_EQ(MaxError(r.y, Floats({2, 6}, Values(x))), 0);
}

// Cast of a computed tensor is a cast node: int64 ids to FLOAT, then float arithmetic (the
// multiply computes float32, the cast's output type).
TEST(ConvertShapeTest, CastOfAComputedInt64TensorToFloat) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "ids", {2, 3}, ::onnx::TensorProto::INT64);
  SetAttr(AddNode(m, "Cast", {"ids"}, {"ids_f"}, "to_float"), "to",
          int64_t{::onnx::TensorProto::FLOAT});
  AddInitializer(m, "scale", Floats({3}, {0.5f, -2.0f, 0.25f}));
  AddNode(m, "Mul", {"ids_f", "scale"}, {"y"}, "scaled");
  AddOutput(m, "y", 2);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].op, "cast");
  EXPECT_EQ(g->nodes[0].name, "to_float");
  EXPECT_EQ(g->nodes[0].attrs, (nlohmann::json{{"to", "float32"}}));
  EXPECT_EQ(g->type(g->nodes[0].outputs[0]).ToString(), "float32[2, 3]");
  EXPECT_EQ(g->nodes[1].op, "multiply");
  // 2^24 + 1 has no float32: it rounds to the nearest one, 2^24.
  absl::StatusOr<std::vector<NDArray>> y =
      Evaluate(m, {Int64s({2, 3}, {-3, 0, 7, (int64_t{1} << 24) + 1, -1, 1000000})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(MaxError((*y)[0], Floats({2, 3}, {-1.5f, 0.0f, 1.75f, 8388608.0f, 2.0f, 250000.0f})),
            0);
}

// The other directions: FLOAT to INT32 truncates toward zero; FLOAT to DOUBLE keeps its type
// through a Mul by a DOUBLE constant (the binaries compute float64).
TEST(ConvertShapeTest, CastOfAComputedFloatTensorToInt32AndDouble) {
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {4});
    SetAttr(AddNode(m, "Cast", {"x"}, {"y"}), "to", int64_t{::onnx::TensorProto::INT32});
    AddOutput(m, "y", 1, ::onnx::TensorProto::INT32);
    absl::StatusOr<std::vector<NDArray>> y =
        Evaluate(m, {Floats({4}, {2.7f, -2.7f, 0.5f, -99.9f})});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ((*y)[0].dtype().code, kDLInt);
    ASSERT_EQ((*y)[0].dtype().bits, 32);
    const int32_t* got = (*y)[0].data<int32_t>();
    EXPECT_EQ(std::vector<int32_t>(got, got + 4), (std::vector<int32_t>{2, -2, 0, -99}));
  }
  {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {2});
    SetAttr(AddNode(m, "Cast", {"x"}, {"xd"}), "to", int64_t{::onnx::TensorProto::DOUBLE});
    NDArray third = NDArray::Empty({1}, DLDataType{kDLFloat, 64, 1});
    third.data<double>()[0] = 1.0 / 3;
    AddInitializer(m, "third", third);
    AddNode(m, "Mul", {"xd", "third"}, {"y"});
    AddOutput(m, "y", 1, ::onnx::TensorProto::DOUBLE);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {Floats({2}, {3.0f, 0.1f})});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ((*y)[0].dtype().code, kDLFloat);
    ASSERT_EQ((*y)[0].dtype().bits, 64);
    EXPECT_DOUBLE_EQ((*y)[0].data<double>()[0], 1.0);
    EXPECT_DOUBLE_EQ((*y)[0].data<double>()[1], static_cast<double>(0.1f) / 3);
  }
}

// A computed tensor cast to a type the cast operator does not convert: Unimplemented, naming
// Cast, the node and the types.
TEST(ConvertShapeTest, CastOfAComputedTensorToAnotherTypeIsUnsupported) {
  for (const auto& [to, name] :
       std::vector<std::pair<int64_t, std::string>>{{::onnx::TensorProto::FLOAT16, "FLOAT16"},
                                                    {::onnx::TensorProto::STRING, "STRING"},
                                                    {::onnx::TensorProto::BOOL, "BOOL"}}) {
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "x", {3});
    SetAttr(AddNode(m, "Cast", {"x"}, {"y"}, "narrow"), "to", to);
    AddOutput(m, "y", 1, static_cast<int>(to));
    absl::StatusOr<Graph> g = Import(m);
    ASSERT_FALSE(g.ok()) << name;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented) << g.status();
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("unsupported ONNX operator 'Cast' (node 'narrow' in test.onnx)"));
    EXPECT_THAT(std::string(g.status().message()), HasSubstr(name));
  }
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {3}, ::onnx::TensorProto::INT8);
  SetAttr(AddNode(m, "Cast", {"x"}, {"y"}, "widen"), "to", int64_t{::onnx::TensorProto::FLOAT});
  AddOutput(m, "y", 1);
  EXPECT_THAT(std::string(Import(m).status().message()),
              HasSubstr("unsupported ONNX operator 'Cast' (node 'widen' in test.onnx): a cast of "
                        "a computed int8 tensor to FLOAT"));
}

// Reshape, Squeeze and Unsqueeze keep int64 (an exported attention mask is unsqueezed before its
// Cast); Transpose computes float32 only, and its refusal names the operator once.
TEST(ConvertShapeTest, ReshapesKeepInt64AndARefusalIsNamedOnce) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "mask", {2, 3}, ::onnx::TensorProto::INT64);
  AddInitializer(m, "axes", Int64s({1}, {1}));
  AddNode(m, "Unsqueeze", {"mask", "axes"}, {"m3"}, "unsqueeze");
  SetAttr(AddNode(m, "Cast", {"m3"}, {"y"}, "to_float"), "to", int64_t{::onnx::TensorProto::FLOAT});
  AddOutput(m, "y", 3);
  absl::StatusOr<std::vector<runtime::NDArray>> y =
      Evaluate(m, {Int64s({2, 3}, {1, 0, 1, 1, 1, 0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->at(0).shape(), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(Values(y->at(0)), (std::vector<float>{1, 0, 1, 1, 1, 0}));

  ::onnx::ModelProto t = NewModel(13);
  AddInput(t, "mask", {2, 3}, ::onnx::TensorProto::INT64);
  SetAttr(AddNode(t, "Transpose", {"mask"}, {"y"}, "swap"), "perm", std::vector<int64_t>{1, 0});
  AddOutput(t, "y", 2, ::onnx::TensorProto::INT64);
  const std::string message(Import(t).status().message());
  EXPECT_THAT(message, HasSubstr("unsupported ONNX operator 'Transpose' (node 'swap'"));
  EXPECT_EQ(message.find("unsupported ONNX operator"), message.rfind("unsupported ONNX operator"))
      << message;
}

// The light models' weights: ConstantOfShape(shape initializer) with a fill value.
TEST(ConvertShapeTest, ConstantOfShapeWeights) {
  ::onnx::ModelProto m = NewModel(11);
  AddInput(m, "x", {2, 3});
  AddInitializer(m, "w_shape", Int64s({2}, {4, 3}));
  SetAttr(AddNode(m, "ConstantOfShape", {"w_shape"}, {"w"}), "value", Floats({1}, {0.5f}));
  SetAttr(AddNode(m, "Gemm", {"x", "w"}, {"y"}), "transB", int64_t{1});
  AddOutput(m, "y", 2);
  const NDArray x = Random({2, 3}, 8);
  Result r = RunOne(m, x);
  std::vector<float> want;
  for (int64_t i = 0; i < 2; ++i) {
    const float row =
        0.5f * (x.data<float>()[i * 3] + x.data<float>()[i * 3 + 1] + x.data<float>()[i * 3 + 2]);
    for (int64_t j = 0; j < 4; ++j) want.push_back(row);
  }
  EXPECT_LT(MaxError(r.y, Floats({2, 4}, want)), 1e-6);
}

}  // namespace
}  // namespace tessel::graph::onnx
