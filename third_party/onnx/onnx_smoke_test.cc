// ONNX: SqueezeNet from the conformance suite loads, passes ONNX's checker, and ONNX's shape
// inference recovers its output shape after the declared shapes are erased. A broken graph is
// refused by the checker.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr char kSqueezeNet[] = "external/conformance/onnx/light/light_squeezenet.onnx";

onnx::ModelProto LoadModel(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromIstream(&in)) << "cannot parse " << path;
  return model;
}

std::vector<int64_t> Dims(const onnx::TypeProto& type) {
  std::vector<int64_t> dims;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  }
  return dims;
}

TEST(OnnxSmokeTest, SqueezeNetPassesTheChecker) {
  onnx::ModelProto model = LoadModel(kSqueezeNet);
  ASSERT_GT(model.graph().node_size(), 50);
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

TEST(OnnxSmokeTest, ShapeInferenceRecoversSqueezeNetOutput) {
  onnx::ModelProto model = LoadModel(kSqueezeNet);
  ASSERT_EQ(model.graph().output_size(), 1);
  std::vector<int64_t> declared = Dims(model.graph().output(0).type());
  EXPECT_EQ(declared, (std::vector<int64_t>{1, 1000, 1, 1}));

  // Forget every shape but the input's, then let ONNX infer them again.
  model.mutable_graph()->clear_value_info();
  model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  ASSERT_TRUE(Dims(model.graph().output(0).type()).empty());
  onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                     onnx::ShapeInferenceOptions(true, 1, true));
  EXPECT_EQ(Dims(model.graph().output(0).type()), declared);
  EXPECT_GT(model.graph().value_info_size(), 50);
}

TEST(OnnxSmokeTest, CheckerRefusesAnUndefinedInput) {
  onnx::ModelProto model = LoadModel(kSqueezeNet);
  model.mutable_graph()->mutable_node(3)->set_input(0, "no_such_tensor");
  EXPECT_THROW(onnx::checker::check_model(model), onnx::checker::ValidationError);
}

}  // namespace
