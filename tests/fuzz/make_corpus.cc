// Writes the fuzzer's seed corpus: small models that together reach every converter family
// (`bazel run //tests/fuzz:make_corpus -- $PWD/tests/fuzz/corpus`). Each one imports.
#include <absl/strings/str_cat.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx::testing {
namespace {

using Model = ::onnx::ModelProto;

Model ConvNet() {
  Model m = NewModel(13);
  AddInput(m, "x", {1, 2, 8, 8});
  AddInitializer(m, "w", Random({4, 2, 3, 3}, 1));
  AddInitializer(m, "b", Random({4}, 2));
  AddInitializer(m, "fc_w", Random({3, 4}, 3));
  AddInitializer(m, "fc_b", Random({3}, 4));
  auto& conv = AddNode(m, "Conv", {"x", "w", "b"}, {"c"}, "conv");
  SetAttr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  SetAttr(conv, "strides", std::vector<int64_t>{2, 2});
  AddNode(m, "Relu", {"c"}, {"r"});
  auto& pool = AddNode(m, "MaxPool", {"r"}, {"p"});
  SetAttr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
  SetAttr(pool, "auto_pad", std::string("SAME_UPPER"));
  AddNode(m, "GlobalAveragePool", {"p"}, {"g"});
  AddNode(m, "Flatten", {"g"}, {"f"});
  SetAttr(AddNode(m, "Gemm", {"f", "fc_w", "fc_b"}, {"y"}), "transB", int64_t{1});
  AddOutput(m, "y", 2);
  return m;
}

Model Conv1dNet() {
  Model m = NewModel(11);
  AddInput(m, "x", {2, 3, 10});
  AddInitializer(m, "w", Random({4, 3, 3}, 5));
  auto& conv = AddNode(m, "Conv", {"x", "w"}, {"c"});
  SetAttr(conv, "dilations", std::vector<int64_t>{2});
  auto& pool = AddNode(m, "AveragePool", {"c"}, {"y"});
  SetAttr(pool, "kernel_shape", std::vector<int64_t>{3});
  SetAttr(pool, "pads", std::vector<int64_t>{1, 1});
  SetAttr(pool, "count_include_pad", int64_t{1});
  AddOutput(m, "y", 3);
  return m;
}

Model FlattenSubgraph() {
  Model m = NewModel(11);
  AddInput(m, "x", {2, 3, 4});
  AddNode(m, "Shape", {"x"}, {"s"});
  SetAttr(AddNode(m, "Constant", {}, {"zero"}), "value", Int64s({}, {0}));
  AddNode(m, "Gather", {"s", "zero"}, {"n"});
  SetAttr(AddNode(m, "Unsqueeze", {"n"}, {"n1"}), "axes", std::vector<int64_t>{0});
  AddInitializer(m, "rest", Int64s({1}, {-1}));
  SetAttr(AddNode(m, "Concat", {"n1", "rest"}, {"shape"}), "axis", int64_t{0});
  AddNode(m, "Reshape", {"x", "shape"}, {"r"});
  SetAttr(AddNode(m, "Softmax", {"r"}, {"y"}), "axis", int64_t{1});
  AddOutput(m, "y", 2);
  return m;
}

Model Lstm() {
  Model m = NewModel(14);
  AddInput(m, "x", {3, 1, 2});
  AddInitializer(m, "w", Random({1, 8, 2}, 6));
  AddInitializer(m, "r", Random({1, 8, 2}, 7));
  AddInitializer(m, "b", Random({1, 16}, 8));
  SetAttr(AddNode(m, "LSTM", {"x", "w", "r", "b"}, {"y", "h"}), "hidden_size", int64_t{2});
  AddOutput(m, "y", 4);
  AddOutput(m, "h", 3);
  return m;
}

Model NormAndMovement() {
  Model m = NewModel(13);
  AddInput(m, "x", {1, 2, 3, 3});
  for (const char* n : {"s", "b", "mean"}) AddInitializer(m, n, Random({2}, 9));
  AddInitializer(m, "var", Floats({2}, {1.0f, 2.0f}));
  AddNode(m, "BatchNormalization", {"x", "s", "b", "mean", "var"}, {"bn"});
  AddInitializer(m, "lo", Floats({}, {-0.5f}));
  AddNode(m, "Clip", {"bn", "lo"}, {"c"});
  AddInitializer(m, "pads", Int64s({8}, {0, 0, 1, 0, 0, 0, 0, 2}));
  AddNode(m, "Pad", {"c", "pads"}, {"p"});
  SetAttr(AddNode(m, "Transpose", {"p"}, {"t"}), "perm", std::vector<int64_t>{0, 1, 3, 2});
  SetAttr(AddNode(m, "Concat", {"t", "t"}, {"y"}), "axis", int64_t{1});
  AddOutput(m, "y", 4);
  return m;
}

Model GatherSliceSplit() {
  Model m = NewModel(13);
  AddInput(m, "x", {4, 6});
  AddInitializer(m, "idx", Int64s({2}, {3, -1}));
  AddNode(m, "Gather", {"x", "idx"}, {"g"});
  AddInitializer(m, "starts", Int64s({1}, {1}));
  AddInitializer(m, "ends", Int64s({1}, {100}));
  AddInitializer(m, "axes", Int64s({1}, {1}));
  AddNode(m, "Slice", {"g", "starts", "ends", "axes"}, {"s"});
  SetAttr(AddNode(m, "Split", {"s"}, {"a", "b"}), "axis", int64_t{0});
  AddNode(m, "Sub", {"a", "b"}, {"y"});
  AddOutput(m, "y", 2);
  return m;
}

// The light models' form: opset 9, weights from ConstantOfShape, a symbolic batch.
Model LightStyle() {
  Model m = NewModel(9);
  AddInput(m, "x", {1, 4});
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()
      ->mutable_dim(0)->set_dim_param("N");
  AddInitializer(m, "w_shape", Int64s({2}, {3, 4}));
  AddInitializer(m, "b_shape", Int64s({1}, {3}));
  SetAttr(AddNode(m, "ConstantOfShape", {"w_shape"}, {"w"}), "value", Floats({1}, {0.1f}));
  SetAttr(AddNode(m, "ConstantOfShape", {"b_shape"}, {"b"}), "value", Floats({1}, {0.2f}));
  SetAttr(AddNode(m, "Gemm", {"x", "w", "b"}, {"g"}), "transB", int64_t{1});
  AddNode(m, "Dropout", {"g"}, {"d"});
  AddNode(m, "Sum", {"d", "g", "d"}, {"y"});
  AddOutput(m, "y", 2);
  return m;
}

Model TransposedConv() {
  Model m = NewModel(13);
  AddInput(m, "x", {1, 2, 3, 3});
  AddInitializer(m, "w", Random({2, 3, 3, 3}, 10));
  auto& up = AddNode(m, "ConvTranspose", {"x", "w"}, {"u"});
  SetAttr(up, "strides", std::vector<int64_t>{2, 2});
  SetAttr(up, "output_padding", std::vector<int64_t>{1, 1});
  AddInitializer(m, "slope", Random({3, 1, 1}, 11));
  AddNode(m, "PRelu", {"u", "slope"}, {"y"});
  AddOutput(m, "y", 4);
  return m;
}

Model MatMulTile() {
  Model m = NewModel(13);
  AddInput(m, "a", {2, 3, 4});
  AddInitializer(m, "b", Random({4, 2}, 12));
  AddNode(m, "MatMul", {"a", "b"}, {"p"});
  AddInitializer(m, "reps", Int64s({3}, {1, 2, 1}));
  AddNode(m, "Tile", {"p", "reps"}, {"t"});
  AddNode(m, "Tanh", {"t"}, {"y"});
  AddOutput(m, "y", 3);
  return m;
}

}  // namespace
}  // namespace tessel::graph::onnx::testing

int main(int argc, char** argv) {
  using namespace tessel::graph::onnx::testing;  // NOLINT
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_corpus FOLDER\n");
    return 2;
  }
  const std::vector<std::pair<std::string, std::function<::onnx::ModelProto()>>> models = {
      {"conv_net", ConvNet},           {"conv1d", Conv1dNet},
      {"flatten_subgraph", FlattenSubgraph}, {"lstm", Lstm},
      {"norm_and_movement", NormAndMovement}, {"gather_slice_split", GatherSliceSplit},
      {"light_style", LightStyle},     {"transposed_conv", TransposedConv},
      {"matmul_tile", MatMulTile},
  };
  for (const auto& [name, make] : models) {
    const ::onnx::ModelProto m = make();
    absl::StatusOr<tessel::graph::Graph> g =
        Import(m, {.dims = {{"N", 1}}});
    if (!g.ok()) {
      std::fprintf(stderr, "%s does not import: %s\n", name.c_str(), g.status().ToString().c_str());
      return 1;
    }
    const std::string path = absl::StrCat(argv[1], "/", name, ".onnx");
    std::ofstream(path, std::ios::binary) << m.SerializeAsString();
    std::printf("%s\n", path.c_str());
  }
  return 0;
}
