// Import as a whole: node and value names, graph inputs and outputs in ONNX's order,
// initializers listed as inputs becoming constants, ONNX's inferred types checked, and a
// ResNet basic block with its head as PyTorch exports it, evaluated against the same network
// built with the Builder.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "baselines/torch/graph_reference.h"
#include "compiler/graph/builder.h"
#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::ElementsAre;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

std::vector<std::string> NodeNames(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes) names.push_back(n.name);
  return names;
}

TEST(ImportTest, NodeNamesAreOnnxNamesWhenUniqueElseOpTypeAndIndex) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3});
  AddNode(m, "Relu", {"x"}, {"a"}, "act");
  AddNode(m, "Sigmoid", {"a"}, {"b"}, "twice");
  AddNode(m, "Tanh", {"b"}, {"c"}, "twice");
  AddNode(m, "Relu", {"c"}, {"d"});
  AddNode(m, "Relu", {"d"}, {"e"}, "x");  // the name of an input: made unique
  AddOutput(m, "e", 2);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(NodeNames(*g), ElementsAre("act", "Sigmoid_1", "Tanh_2", "Relu_3", "x_1"));
}

TEST(ImportTest, InputsAndOutputsInOnnxOrder) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "b", {3});
  AddInput(m, "a", {3});
  AddInput(m, "w", {3});  // also an initializer: a constant, not a graph input
  AddInitializer(m, "w", Floats({3}, {1, 2, 3}));
  AddNode(m, "Add", {"a", "w"}, {"first"}, "add");
  AddNode(m, "Mul", {"b", "w"}, {"second"}, "mul");
  AddOutput(m, "second", 1);
  AddOutput(m, "first", 1);
  AddOutput(m, "a", 1);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->inputs.size(), 2u);
  EXPECT_EQ(g->value(g->inputs[0]).name, "b");
  EXPECT_EQ(g->value(g->inputs[1]).name, "a");
  ASSERT_EQ(g->outputs.size(), 3u);
  EXPECT_EQ(g->value(g->outputs[0]).name, "mul");
  EXPECT_EQ(g->value(g->outputs[1]).name, "add");
  EXPECT_EQ(g->outputs[2], g->inputs[1]);
  EXPECT_EQ(g->value(g->nodes[0].inputs[1]).kind, ValueKind::kConstant);
}

// conv3x3 - bn - relu - conv3x3 - bn - (+x) - relu - global pool - flatten - fc, as
// torch.onnx.export writes a torchvision basic block and head (opset 13).
TEST(ImportTest, PyTorchStyleResidualBlock) {
  const int64_t c = 4;
  const NDArray w1 = Random({c, c, 3, 3}, 1), w2 = Random({c, c, 3, 3}, 2);
  const NDArray fc_w = Random({5, c}, 3), fc_b = Random({5}, 4);
  std::vector<NDArray> bn[2];
  for (int k = 0; k < 2; ++k) {
    NDArray var = Random({c}, 10 + k);
    for (int64_t i = 0; i < c; ++i) var.data<float>()[i] = 1.0f + std::abs(var.data<float>()[i]);
    bn[k] = {Random({c}, 20 + k), Random({c}, 30 + k), Random({c}, 40 + k), var};
  }
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "input", {1, c, 6, 6});
  AddInitializer(m, "conv1.weight", w1);
  AddInitializer(m, "conv2.weight", w2);
  AddInitializer(m, "fc.weight", fc_w);
  AddInitializer(m, "fc.bias", fc_b);
  const char* bn_names[2][4] = {{"bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var"},
                                {"bn2.weight", "bn2.bias", "bn2.running_mean", "bn2.running_var"}};
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 4; ++i) AddInitializer(m, bn_names[k][i], bn[k][i]);
  auto conv = [&](const std::string& name, const std::string& in, const std::string& w,
                  const std::string& out) {
    auto& n = AddNode(m, "Conv", {in, w}, {out}, name);
    SetAttr(n, "kernel_shape", std::vector<int64_t>{3, 3});
    SetAttr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
    SetAttr(n, "strides", std::vector<int64_t>{1, 1});
  };
  conv("/conv1/Conv", "input", "conv1.weight", "/conv1/Conv_output_0");
  AddNode(m, "BatchNormalization",
          {"/conv1/Conv_output_0", bn_names[0][0], bn_names[0][1], bn_names[0][2], bn_names[0][3]},
          {"/bn1/output_0"}, "/bn1/BatchNormalization");
  AddNode(m, "Relu", {"/bn1/output_0"}, {"/relu/Relu_output_0"}, "/relu/Relu");
  conv("/conv2/Conv", "/relu/Relu_output_0", "conv2.weight", "/conv2/Conv_output_0");
  AddNode(m, "BatchNormalization",
          {"/conv2/Conv_output_0", bn_names[1][0], bn_names[1][1], bn_names[1][2], bn_names[1][3]},
          {"/bn2/output_0"}, "/bn2/BatchNormalization");
  AddNode(m, "Add", {"/bn2/output_0", "input"}, {"/Add_output_0"}, "/Add");
  AddNode(m, "Relu", {"/Add_output_0"}, {"/relu_1/Relu_output_0"}, "/relu_1/Relu");
  AddNode(m, "GlobalAveragePool", {"/relu_1/Relu_output_0"}, {"/avgpool/output_0"},
          "/avgpool/GlobalAveragePool");
  SetAttr(AddNode(m, "Flatten", {"/avgpool/output_0"}, {"/Flatten_output_0"}, "/Flatten"), "axis",
          int64_t{1});
  auto& fc =
      AddNode(m, "Gemm", {"/Flatten_output_0", "fc.weight", "fc.bias"}, {"output"}, "/fc/Gemm");
  SetAttr(fc, "alpha", 1.0f);
  SetAttr(fc, "beta", 1.0f);
  SetAttr(fc, "transB", int64_t{1});
  AddOutput(m, "output", 2);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(NodeNames(*g),
              ElementsAre("/conv1/Conv", "/bn1/BatchNormalization", "/relu/Relu", "/conv2/Conv",
                          "/bn2/BatchNormalization", "/Add", "/relu_1/Relu",
                          "/avgpool/GlobalAveragePool", "/Flatten", "/fc/Gemm"));

  Builder b;
  const ValueId x = b.Input("x", {{1, c, 6, 6}});
  auto constant = [&](const std::string& name, const NDArray& a) { return b.Constant(name, a); };
  ValueId y = b.Op("conv2d", {x, constant("w1", w1)}, {{"pad", {1, 1, 1, 1}}});
  y = b.Op("batch_norm", {y, constant("g1", bn[0][0]), constant("b1", bn[0][1]),
                          constant("m1", bn[0][2]), constant("v1", bn[0][3])});
  y = b.Op("relu", {y});
  y = b.Op("conv2d", {y, constant("w2", w2)}, {{"pad", {1, 1, 1, 1}}});
  y = b.Op("batch_norm", {y, constant("g2", bn[1][0]), constant("b2", bn[1][1]),
                          constant("m2", bn[1][2]), constant("v2", bn[1][3])});
  y = b.Op("relu", {b.Op("add", {y, x})});
  y = b.Op("flatten", {b.Op("global_avg_pool2d", {y})});
  b.Output(b.Op("dense", {y, constant("fc_w", fc_w), constant("fc_b", fc_b)}));
  absl::StatusOr<Graph> want_graph = b.Finish();
  ASSERT_TRUE(want_graph.ok()) << want_graph.status();

  const NDArray input = Random({1, c, 6, 6}, 99);
  absl::StatusOr<std::vector<NDArray>> got = baselines::EvaluateReference(*g, {input});
  absl::StatusOr<std::vector<NDArray>> want = baselines::EvaluateReference(*want_graph, {input});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_EQ(MaxError((*got)[0], (*want)[0]), 0);
}

}  // namespace
}  // namespace tessel::graph::onnx
