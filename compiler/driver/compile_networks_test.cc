// The paper's five networks (workloads/networks) compiled untuned with the graph optimizations
// (passes and fusion) and without them, run by the graph executor and compared with the same
// networks written with libtorch's modules on the same weights (baselines/torch/networks): an
// implementation of the network independent of our graph, passes and kernels. The target is the
// test target (compiler/testing/test_target.h): this host, and in compile_networks_test_other_width
// the other vector width, run where this CPU can run it and compiled only where it cannot.
#include <gtest/gtest.h>

#include <tuple>

#include "baselines/torch/networks/torch_network.h"
#include "compiler/driver/compile_model.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/testing/test_target.h"
#include "workloads/networks/network.h"

namespace tessel::driver {
namespace {

class CompileNetworkTest : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(CompileNetworkTest, MatchesLibtorch) {
  const auto& [name, optimize] = GetParam();
  absl::StatusOr<graph::Graph> g = workloads::networks::BuildNetwork(name, {});
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<runtime::NDArray>> inputs =
      workloads::networks::NetworkInputs(name, *g, 1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  const target::Target on = tessel::testing::TestTarget();
  absl::StatusOr<CompiledModel> m = Compile(*g, on, nullptr, {.optimize_graph = optimize});
  ASSERT_TRUE(m.ok()) << m.status();
  std::cout << "target: " << m->facts.target << "\n";
  std::cout << name << (optimize ? " optimized" : " as given") << ": " << m->graph.nodes.size()
            << " nodes, " << m->steps.size() << " steps (" << m->NumFusedSteps() << " fused), "
            << m->kernels.size() << " kernels, memory " << m->memory.peak_bytes << " bytes (naive "
            << m->memory.naive_bytes << "), compiled in " << m->stats.total << " s\n";
  if (optimize) {
    // lstm_lm has nothing to fuse: its cells and log_softmax are opaque, its take and
    // concatenate injective without a master.
    if (name != "lstm_lm") {
      EXPECT_GT(m->NumFusedSteps(), 0);
    }
    EXPECT_LT(m->memory.peak_bytes, m->memory.naive_bytes);
  } else {
    EXPECT_EQ(m->steps.size(), g->nodes.size());
    EXPECT_EQ(m->graph.nodes.size(), g->nodes.size());
  }
  if (!ops::testing::NotRunHere(on).empty()) return;
  absl::StatusOr<runtime::GraphExecutor> exec = MakeExecutor(*m);
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(*inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<baselines::TorchNetwork> torch = baselines::MakeTorchNetwork(name, *g);
  ASSERT_TRUE(torch.ok()) << torch.status();
  absl::StatusOr<std::vector<runtime::NDArray>> want = torch->Run(*inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::Status same = ops::CompareOutputs(*got, *want, {.atol = 2e-3, .rtol = 2e-3});
  EXPECT_TRUE(same.ok()) << same;
}

INSTANTIATE_TEST_SUITE_P(
    Networks, CompileNetworkTest,
    ::testing::Combine(::testing::ValuesIn(workloads::networks::NetworkNames()), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<std::string, bool>>& info) {
      return std::get<0>(info.param) + (std::get<1>(info.param) ? "_optimized" : "_as_given");
    });

}  // namespace
}  // namespace tessel::driver
