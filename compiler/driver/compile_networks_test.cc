// The paper's five networks (workloads/networks) compiled untuned, run by the graph executor and
// compared with the libtorch evaluation of the same graph (graph::EvaluateReference).
#include <gtest/gtest.h>

#include "compiler/driver/compile_model.h"
#include "compiler/graph/reference_eval.h"
#include "compiler/ops/op_runner.h"
#include "workloads/networks/network.h"

namespace tessel::driver {
namespace {

class CompileNetworkTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CompileNetworkTest, MatchesLibtorch) {
  absl::StatusOr<graph::Graph> g = workloads::networks::BuildNetwork(GetParam(), {});
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<runtime::NDArray>> inputs =
      workloads::networks::NetworkInputs(GetParam(), *g, 1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<CompiledModel> m = Compile(*g, "llvm", nullptr);
  ASSERT_TRUE(m.ok()) << m.status();
  std::cout << GetParam() << ": " << m->graph.nodes.size() << " nodes, " << m->kernels.size()
            << " kernels, compiled in " << m->stats.total << " s\n";
  absl::StatusOr<runtime::GraphExecutor> exec = MakeExecutor(*m);
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(*inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<runtime::NDArray>> want = graph::EvaluateReference(*g, *inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::Status same = ops::CompareOutputs(*got, *want, {.atol = 2e-3, .rtol = 2e-3});
  EXPECT_TRUE(same.ok()) << same;
}

INSTANTIATE_TEST_SUITE_P(Networks, CompileNetworkTest,
                         ::testing::ValuesIn(workloads::networks::NetworkNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tessel::driver
