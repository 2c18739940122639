// ResNet-18 through the graph optimizations: which nodes become one kernel without the layout
// pass (with the measured tail rule, with every tail allowed, with fusion off) and with it, and
// the memory plan: smaller than one
// buffer per value, and the outputs the same with and without buffer reuse and equal to
// libtorch's network.
#include <gtest/gtest.h>

#include <map>

#include "baselines/torch/networks/torch_network.h"
#include "compiler/driver/compile_model.h"
#include "compiler/ops/op_runner.h"
#include "workloads/networks/network.h"

namespace tessel::driver {
namespace {

struct Resnet {
  graph::Graph graph;
  std::vector<runtime::NDArray> inputs;
  std::vector<runtime::NDArray> torch_outputs;
};

const Resnet& GetResnet() {
  static const Resnet* r = [] {
    auto* r = new Resnet;
    absl::StatusOr<graph::Graph> g = workloads::networks::BuildNetwork("resnet18", {});
    EXPECT_TRUE(g.ok()) << g.status();
    r->graph = *std::move(g);
    absl::StatusOr<std::vector<runtime::NDArray>> in =
        workloads::networks::NetworkInputs("resnet18", r->graph, 1);
    EXPECT_TRUE(in.ok()) << in.status();
    r->inputs = *std::move(in);
    absl::StatusOr<baselines::TorchNetwork> torch =
        baselines::MakeTorchNetwork("resnet18", r->graph);
    EXPECT_TRUE(torch.ok()) << torch.status();
    absl::StatusOr<std::vector<runtime::NDArray>> out = torch->Run(r->inputs);
    EXPECT_TRUE(out.ok()) << out.status();
    r->torch_outputs = *std::move(out);
    return r;
  }();
  return *r;
}

CompiledModel CompileResnet(const CompileOptions& options) {
  absl::StatusOr<CompiledModel> m =
      Compile(GetResnet().graph, target::Target::Llvm(), nullptr, options);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : CompiledModel{};
}

std::vector<runtime::NDArray> RunModel(const CompiledModel& m, int64_t* allocated = nullptr) {
  absl::StatusOr<runtime::GraphExecutor> exec = MakeExecutor(m);
  EXPECT_TRUE(exec.ok()) << exec.status();
  if (!exec.ok()) return {};
  if (allocated != nullptr) *allocated = exec->AllocatedBytes();
  absl::StatusOr<std::vector<runtime::NDArray>> out = exec->Run(GetResnet().inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<runtime::NDArray>{};
}

void ExpectMatchesTorch(const std::vector<runtime::NDArray>& got) {
  absl::Status same =
      ops::CompareOutputs(got, GetResnet().torch_outputs, {.atol = 2e-3, .rtol = 2e-3});
  EXPECT_TRUE(same.ok()) << same;
}

// The operators of a step's nodes, master first: "conv2d+add+relu".
std::string StepOps(const CompiledModel& m, const CompiledStep& step) {
  std::string text = m.graph.nodes[static_cast<size_t>(step.master)].op;
  for (int n : step.nodes) {
    if (n != step.master) text += "+" + m.graph.nodes[static_cast<size_t>(n)].op;
  }
  return text;
}

std::map<std::string, int> CountStepKinds(const CompiledModel& m) {
  std::map<std::string, int> kinds;
  for (const CompiledStep& step : m.steps) ++kinds[StepOps(m, step)];
  return kinds;
}

// Default (the measured rule): conv -> folded bias -> relu is one kernel, and conv -> bias
// before a residual add too; the blocked convolutions stop before the residual, whose add and
// relu run on their own. The memory plan shares buffers, and reusing them changes nothing.
TEST(CompileResnetTest, FusesConvBiasReluAndPlansMemory) {
  const CompiledModel m = CompileResnet({.alter_layout = false});
  for (const graph::Node& n : m.graph.nodes) EXPECT_NE(n.op, "batch_norm") << n.name;
  const std::map<std::string, int> kinds = CountStepKinds(m);
  // The stem and each block's first conv; each block's second conv and the 3 projections.
  EXPECT_EQ(kinds.at("conv2d+add+relu"), 9);
  EXPECT_EQ(kinds.at("conv2d+add"), 11);
  EXPECT_EQ(kinds.at("add"), 8);   // the residual adds
  EXPECT_EQ(kinds.at("relu"), 8);  // after them
  EXPECT_EQ(m.NumFusedSteps(), 20);
  EXPECT_EQ(m.steps.size(), 40u);  // the 69 nodes
  EXPECT_EQ(m.graph.nodes.size(), 69u);
  for (const CompiledStep& step : m.steps) {
    const CompiledKernel& k = m.kernels[static_cast<size_t>(step.kernel)];
    EXPECT_EQ(k.tail.empty(), step.nodes.size() == 1) << StepOps(m, step);
    // Blocked outputs (Winograd's tiles included) are unpacked by the executor into the value's
    // planned storage, not by a host finish.
    EXPECT_NE(step.result_mode, runtime::ResultMode::kFinish) << StepOps(m, step);
    // The task is the master's own: a log tuned for the node applies to the fused kernel.
    EXPECT_EQ(k.task.args,
              *graph::OpArgsOf(m.graph, m.graph.nodes[static_cast<size_t>(step.master)]));
  }

  // Memory: planned storages against one buffer per value; the executor allocates accordingly.
  EXPECT_LT(m.memory.peak_bytes, m.memory.naive_bytes);
  EXPECT_LT(m.memory.peak_bytes, m.memory.naive_bytes / 2);
  int64_t planned_bytes = 0, naive_bytes = 0;
  const std::vector<runtime::NDArray> planned = RunModel(m, &planned_bytes);
  ExpectMatchesTorch(planned);
  CompiledModel unplanned = m;
  unplanned.memory.storage_of.clear();
  unplanned.memory.storage_bytes.clear();
  const std::vector<runtime::NDArray> separate = RunModel(unplanned, &naive_bytes);
  EXPECT_EQ(naive_bytes - planned_bytes, m.memory.naive_bytes - m.memory.peak_bytes);
  absl::Status same = ops::CompareOutputs(planned, separate, {.atol = 0, .rtol = 0});
  EXPECT_TRUE(same.ok()) << same;
}

// With every tail allowed, the residual add and its relu fuse into the second conv of each
// block: 8 fewer steps of each.
TEST(CompileResnetTest, ResidualAddFusesWhenTheRuleAllowsIt) {
  const CompiledModel m =
      CompileResnet({.alter_layout = false, .strided_tail_inputs = StridedTailInputs::kAlways});
  const std::map<std::string, int> kinds = CountStepKinds(m);
  EXPECT_EQ(kinds.at("conv2d+add+relu"), 9);
  EXPECT_EQ(kinds.at("conv2d+add+add+relu"), 8);
  EXPECT_EQ(kinds.at("conv2d+add"), 3);
  EXPECT_EQ(kinds.count("add"), 0u);
  EXPECT_EQ(kinds.count("relu"), 0u);
  EXPECT_EQ(m.steps.size(), 24u);
  ExpectMatchesTorch(RunModel(m));
}

// Fusion off, the other passes on: batch norms folded, one kernel per node of the result; and
// without the graph optimizations, one per node of the graph as given.
TEST(CompileResnetTest, FusionOffIsOneKernelPerNode) {
  const CompiledModel m = CompileResnet({.fuse = false});
  EXPECT_EQ(m.NumFusedSteps(), 0);
  ASSERT_EQ(m.steps.size(), m.graph.nodes.size());
  for (size_t i = 0; i < m.steps.size(); ++i) {
    EXPECT_EQ(m.steps[i].nodes, std::vector<int>{static_cast<int>(i)});
  }
  int batch_norms = 0;
  for (const graph::Node& n : m.graph.nodes) batch_norms += n.op == "batch_norm" ? 1 : 0;
  EXPECT_EQ(batch_norms, 0);
  ExpectMatchesTorch(RunModel(m));

  const CompiledModel given = CompileResnet({.optimize_graph = false});
  ASSERT_EQ(given.steps.size(), GetResnet().graph.nodes.size());
  for (const graph::Node& n : given.graph.nodes) batch_norms += n.op == "batch_norm" ? 1 : 0;
  EXPECT_EQ(batch_norms, 20);
}

}  // namespace
}  // namespace tessel::driver
