// What the exporter writes: the operators and conventions of torch.onnx.export (exported.h,
// torch_style.h), the origin metadata, and the errors of its file functions.
#include "workloads/exported/exported.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "compiler/graph/onnx/import.h"

namespace tessel::workloads::exported {
namespace {

std::map<std::string, int> OpCounts(const ::onnx::ModelProto& m) {
  std::map<std::string, int> counts;
  for (const auto& n : m.graph().node()) ++counts[n.op_type()];
  return counts;
}

std::string TempPath(const std::string& file) {
  return (std::filesystem::path(::testing::TempDir()) / file).string();
}

TEST(ExportedTest, DqnFlattensAsTracedViewAndWritesBiasesAsConvInputs) {
  absl::StatusOr<::onnx::ModelProto> m = ExportNetwork("dqn", {.batch = 2});
  ASSERT_TRUE(m.ok()) << m.status();
  std::map<std::string, int> ops = OpCounts(*m);
  EXPECT_EQ(ops["Conv"], 3);
  EXPECT_EQ(ops["Gemm"], 2);
  EXPECT_EQ(ops["Shape"], 1);
  EXPECT_EQ(ops["Reshape"], 1);
  EXPECT_EQ(ops["Add"], 0);  // the conv biases are Conv's third input
  EXPECT_GT(ops["Constant"], 0);
  for (const auto& n : m->graph().node()) {
    if (n.op_type() == "Conv") {
      EXPECT_EQ(n.input_size(), 3) << n.name();
    }
  }
  EXPECT_EQ(m->graph().node(0).name(), "/conv1/Conv");
  EXPECT_EQ(m->graph().input(0).name(), "frames");
  EXPECT_EQ(m->graph().output(0).name(), "action_values");
  EXPECT_EQ(m->opset_import(0).version(), 17);
  // The frontend takes it, the traced shape arithmetic folded away.
  absl::StatusOr<graph::Graph> g = graph::onnx::ImportOnnxBytes(m->SerializeAsString(), "dqn");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->type(g->outputs[0]).shape, (std::vector<int64_t>{2, 18}));
}

TEST(ExportedTest, LstmLmIsOneOnnxLstmPerLayerOnInt64Tokens) {
  absl::StatusOr<::onnx::ModelProto> m = ExportNetwork("lstm_lm", {});
  ASSERT_TRUE(m.ok()) << m.status();
  std::map<std::string, int> ops = OpCounts(*m);
  EXPECT_EQ(ops["LSTM"], 2);
  EXPECT_EQ(ops["Gather"], 1);
  EXPECT_EQ(ops["Gemm"], 1);
  EXPECT_EQ(ops["LogSoftmax"], 1);
  EXPECT_EQ(m->graph().input(0).type().tensor_type().elem_type(), ::onnx::TensorProto::INT64);
  for (const auto& n : m->graph().node()) {
    if (n.op_type() != "LSTM") continue;
    EXPECT_EQ(n.input(4), "");  // sequence_lens omitted
    EXPECT_EQ(n.output_size(), 3);
  }
}

TEST(ExportedTest, DcganProjectsWithMatMulOfTheTransposedWeight) {
  absl::StatusOr<::onnx::ModelProto> m = ExportNetwork("dcgan", {});
  ASSERT_TRUE(m.ok()) << m.status();
  std::map<std::string, int> ops = OpCounts(*m);
  EXPECT_EQ(ops["MatMul"], 1);
  EXPECT_EQ(ops["ConvTranspose"], 4);
  EXPECT_EQ(ops["BatchNormalization"], 4);
  EXPECT_EQ(ops["Tanh"], 1);
  bool transposed = false;
  for (const auto& t : m->graph().initializer()) {
    if (t.name().rfind("onnx::MatMul_", 0) == 0) {
      transposed = true;
      EXPECT_EQ(t.dims(0), 100);
      EXPECT_EQ(t.dims(1), 512 * 4 * 4);
    }
  }
  EXPECT_TRUE(transposed);
}

TEST(ExportedTest, BertIsOpset14WithLayerNormAndGeluDecomposed) {
  absl::StatusOr<::onnx::ModelProto> m = ExportNetwork("bert_base", {});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->opset_import(0).version(), 14);
  std::map<std::string, int> ops = OpCounts(*m);
  const int layer_norms = 1 + 2 * 12;
  EXPECT_EQ(ops["ReduceMean"], 2 * layer_norms);
  EXPECT_EQ(ops["Pow"], layer_norms);
  EXPECT_EQ(ops["Sqrt"], layer_norms);
  EXPECT_EQ(ops["Erf"], 12);
  EXPECT_EQ(ops["Softmax"], 12);
  EXPECT_EQ(ops["MatMul"], 12 * (6 + 2));  // six linear layers and two per-head products
  EXPECT_EQ(ops["Cast"], 1);
  EXPECT_EQ(ops["Gather"], 3);
  EXPECT_EQ(ops["LayerNormalization"], 0);
  EXPECT_EQ(m->graph().input(1).name(), "attention_mask");
  EXPECT_EQ(m->graph().input(1).type().tensor_type().elem_type(), ::onnx::TensorProto::INT64);
}

TEST(ExportedTest, OriginRoundTripsThroughAFile) {
  absl::StatusOr<::onnx::ModelProto> m = ExportNetwork("dqn", {.batch = 3, .seed = 7});
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string path = TempPath("dqn.onnx");
  ASSERT_TRUE(WriteModel(*m, path).ok());
  absl::StatusOr<ExportOrigin> origin = ReadExportOrigin(path);
  ASSERT_TRUE(origin.ok()) << origin.status();
  EXPECT_EQ(origin->network, "dqn");
  EXPECT_EQ(origin->batch, 3);
  EXPECT_EQ(origin->seed, 7u);
}

TEST(ExportedTest, UnknownNetworkIsNamed) {
  absl::StatusOr<::onnx::ModelProto> m = ExportNetwork("alexnet", {});
  ASSERT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(m.status().message().find("'alexnet'"), std::string::npos) << m.status();
  EXPECT_NE(m.status().message().find("resnet18"), std::string::npos) << m.status();
}

TEST(ExportedTest, OriginErrorsNameTheFile) {
  const std::string garbage = TempPath("garbage.onnx");
  std::ofstream(garbage) << "not a protobuf \xff\xff\xff";
  absl::StatusOr<ExportOrigin> o = ReadExportOrigin(garbage);
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(o.status().message().find(garbage), std::string::npos) << o.status();

  ::onnx::ModelProto plain;
  plain.set_ir_version(8);
  const std::string foreign = TempPath("foreign.onnx");
  ASSERT_TRUE(WriteModel(plain, foreign).ok());
  o = ReadExportOrigin(foreign);
  EXPECT_EQ(o.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(o.status().message().find("not written by `tessel export`"), std::string::npos)
      << o.status();

  auto* p = plain.add_metadata_props();
  p->set_key("tessel.network");
  p->set_value("dqn");
  p = plain.add_metadata_props();
  p->set_key("tessel.batch");
  p->set_value("zero");
  ASSERT_TRUE(WriteModel(plain, foreign).ok());
  o = ReadExportOrigin(foreign);
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(o.status().message().find("tessel.batch"), std::string::npos) << o.status();

  EXPECT_FALSE(ReadExportOrigin(TempPath("absent.onnx")).ok());
  EXPECT_FALSE(WriteModel(plain, "/proc/no/such/dir/x.onnx").ok());
}

}  // namespace
}  // namespace tessel::workloads::exported
