// Each network as PyTorch's exporter writes it (exported.h), imported by the ONNX frontend,
// compiled with the graph optimizations and run, against the same network written with
// libtorch's modules on the same weights (baselines/torch/networks): the whole path a user's
// exported model takes, checked by an implementation independent of the file and the frontend.
#include <gtest/gtest.h>

#include "baselines/torch/networks/torch_network.h"
#include "compiler/driver/compile_model.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/ops/op_runner.h"
#include "compiler/testing/test_target.h"
#include "workloads/exported/exported.h"
#include "workloads/networks/network.h"

namespace tessel::workloads::exported {
namespace {

class ExportedNetworkTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExportedNetworkTest, CompiledMatchesLibtorch) {
  const std::string name = GetParam();
  absl::StatusOr<::onnx::ModelProto> model = ExportNetwork(name, {});
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<graph::Graph> imported =
      graph::onnx::ImportOnnxBytes(model->SerializeAsString(), name + ".onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<std::vector<runtime::NDArray>> inputs =
      networks::NetworkInputs(name, *imported, /*seed=*/1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();

  absl::StatusOr<driver::CompiledModel> compiled =
      driver::Compile(*imported, tessel::testing::TestTarget(), nullptr, {});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::cout << name << ": " << model->graph().node_size() << " ONNX nodes, "
            << imported->nodes.size() << " graph nodes, " << compiled->steps.size() << " steps, "
            << compiled->kernels.size() << " kernels\n";
  absl::StatusOr<runtime::GraphExecutor> exec = driver::MakeExecutor(*compiled);
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(*inputs);
  ASSERT_TRUE(got.ok()) << got.status();

  absl::StatusOr<graph::Graph> built = networks::BuildNetwork(name, {});
  ASSERT_TRUE(built.ok()) << built.status();
  absl::StatusOr<std::vector<runtime::NDArray>> torch_inputs =
      networks::NetworkInputs(name, *built, /*seed=*/1);
  ASSERT_TRUE(torch_inputs.ok()) << torch_inputs.status();
  absl::StatusOr<baselines::TorchNetwork> torch = baselines::MakeTorchNetwork(name, *built);
  ASSERT_TRUE(torch.ok()) << torch.status();
  absl::StatusOr<std::vector<runtime::NDArray>> want = torch->Run(*torch_inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  const absl::Status same = ops::CompareOutputs(*got, *want, {.atol = 2e-3, .rtol = 2e-3});
  EXPECT_TRUE(same.ok()) << same;
}

INSTANTIATE_TEST_SUITE_P(Networks, ExportedNetworkTest, ::testing::ValuesIn(ExportedNetworkNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tessel::workloads::exported
