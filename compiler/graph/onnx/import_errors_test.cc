// Malformed models: each error is a clear status naming the file and what is wrong (the value,
// the node or ONNX's own message), never a crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers

// x [2, 3] -> Relu -> y.
::onnx::ModelProto ReluModel() {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3});
  AddNode(m, "Relu", {"x"}, {"y"}, "relu");
  AddOutput(m, "y", 2);
  return m;
}

std::string ErrorOf(const std::string& bytes, const ImportOptions& options = {}) {
  absl::StatusOr<Graph> g = ImportOnnxBytes(bytes, "bad.onnx", options);
  EXPECT_FALSE(g.ok());
  if (g.ok()) return "";
  std::cout << "  error: " << g.status() << std::endl;  // the messages, for the log
  return g.status().ToString();
}

TEST(ImportErrorsTest, TruncatedFile) {
  ::onnx::ModelProto m = ReluModel();
  AddInitializer(m, "w", Random({64}, 1));  // make the file long enough to cut inside a tensor
  const std::string bytes = m.SerializeAsString();
  for (size_t cut : {bytes.size() / 2, bytes.size() - 3, size_t{1}}) {
    EXPECT_THAT(ErrorOf(bytes.substr(0, cut)),
                AllOf(HasSubstr("INVALID_ARGUMENT"), HasSubstr("bad.onnx")))
        << "cut at " << cut;
  }
}

TEST(ImportErrorsTest, NotAProtobuf) {
  EXPECT_THAT(ErrorOf("\xff\xff\xff\xff this is not an ONNX model"),
              HasSubstr("bad.onnx: not an ONNX model"));
  EXPECT_THAT(ErrorOf(""), HasSubstr("bad.onnx: ONNX checker"));
}

TEST(ImportErrorsTest, WrongElementType) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {1, 1, 4, 4}, ::onnx::TensorProto::STRING);
  AddInitializer(m, "w", Random({1, 1, 3, 3}, 1));
  AddNode(m, "Conv", {"x", "w"}, {"y"}, "conv");
  AddOutput(m, "y", 4);
  EXPECT_THAT(ErrorOf(m.SerializeAsString()),
              AllOf(HasSubstr("bad.onnx: ONNX shape inference"), HasSubstr("Conv"),
                    HasSubstr("tensor(string)")));
}

TEST(ImportErrorsTest, InputNoNodeProduces) {
  ::onnx::ModelProto m = ReluModel();
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  EXPECT_THAT(ErrorOf(m.SerializeAsString()),
              AllOf(HasSubstr("bad.onnx: ONNX checker"), HasSubstr("nowhere")));
}

TEST(ImportErrorsTest, Cycle) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3});
  AddNode(m, "Add", {"x", "b"}, {"a"}, "first");
  AddNode(m, "Relu", {"a"}, {"b"}, "second");
  AddOutput(m, "b", 2);
  EXPECT_THAT(ErrorOf(m.SerializeAsString()),
              AllOf(HasSubstr("bad.onnx: ONNX checker"), HasSubstr("topologically sorted")));
}

TEST(ImportErrorsTest, ShapeMismatch) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "a", {2, 3});
  AddInput(m, "b", {4, 5});
  AddNode(m, "Add", {"a", "b"}, {"y"}, "sum");
  AddOutput(m, "y", 2);
  EXPECT_THAT(ErrorOf(m.SerializeAsString()),
              AllOf(HasSubstr("bad.onnx: ONNX shape inference"), HasSubstr("sum"),
                    HasSubstr("Incompatible dimensions")));
}

TEST(ImportErrorsTest, UnboundSymbolicDimension) {
  ::onnx::ModelProto m = ReluModel();
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_param("batch");
  EXPECT_THAT(ErrorOf(m.SerializeAsString()),
              HasSubstr("bad.onnx: input 'x' dimension 0 is symbolic ('batch'): give it a value "
                        "(ImportOptions::dims)"));
  absl::StatusOr<Graph> g =
      ImportOnnxBytes(m.SerializeAsString(), "ok.onnx", {.dims = {{"batch", 5}}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->type(g->inputs[0]), (TensorType{{5, 3}}));
}

TEST(ImportErrorsTest, MissingFile) {
  absl::StatusOr<Graph> g = ImportOnnxFile("/no/such/model.onnx");
  EXPECT_EQ(g.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("cannot open ONNX model '/no/such/model.onnx'"));
}

TEST(ImportErrorsTest, InitializerWithTooLittleData) {
  ::onnx::ModelProto m = ReluModel();
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(1000000);
  t->add_dims(1000000);
  t->add_float_data(1.0f);
  EXPECT_THAT(ErrorOf(m.SerializeAsString()), HasSubstr("bad.onnx"));
  EXPECT_THAT(ErrorOf(m.SerializeAsString()), HasSubstr("'w'"));
}

TEST(ImportErrorsTest, ConstantsPastTheBudget) {
  ::onnx::ModelProto m = NewModel(13);
  AddInitializer(m, "shape", Int64s({2}, {1024, 1024}));
  AddNode(m, "ConstantOfShape", {"shape"}, {"big"}, "fill");
  AddOutput(m, "big", 2);
  absl::StatusOr<Graph> g =
      ImportOnnxBytes(m.SerializeAsString(), "big.onnx", {.max_constant_bytes = 1 << 20});
  EXPECT_EQ(g.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(g.status().message()),
              AllOf(HasSubstr("big.onnx: node 'fill' (ConstantOfShape)"),
                    HasSubstr("ImportOptions::max_constant_bytes")));
  EXPECT_TRUE(ImportOnnxBytes(m.SerializeAsString(), "big.onnx").ok());
}

TEST(ImportErrorsTest, UnsupportedOperatorNamesItAndTheNode) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 3, 3});
  AddNode(m, "Det", {"x"}, {"y"}, "det1");
  AddOutput(m, "y", 1);
  absl::StatusOr<Graph> g = Import(m);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(g.status().message(), "unsupported ONNX operator 'Det' (node 'det1' in test.onnx)");
}

}  // namespace
}  // namespace tessel::graph::onnx
