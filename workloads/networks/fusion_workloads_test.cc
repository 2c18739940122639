// Fig. 4's fusion workloads: their shapes and primitive operators, the cells written with
// primitive operators against torch's own cells (the opaque rnn_cell / lstm_cell operators, whose
// reference is torch's RNNCell / LSTMCell) on the same weights, and each workload compiled with
// fusion off and on against the per-node libtorch reference (baselines::EvaluateReference).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "baselines/torch/graph_reference.h"
#include "compiler/driver/compile_model.h"
#include "compiler/graph/builder.h"
#include "compiler/ops/op_runner.h"
#include "workloads/networks/network.h"

namespace tessel::workloads::networks {
namespace {

using ::testing::HasSubstr;

struct Expected {
  std::string name;
  std::vector<std::vector<int64_t>> inputs, outputs;
  std::vector<std::string> ops;  // every node's operator, in order
};

void PrintTo(const Expected& e, std::ostream* os) { *os << e.name; }

const std::vector<Expected>& AllExpected() {
  static const auto* const all = new std::vector<Expected>{
      {"conv_bn_relu", {{1, 128, 28, 28}}, {{1, 256, 28, 28}}, {"conv2d", "batch_norm", "relu"}},
      {"depthwise_bn_relu",
       {{1, 512, 14, 14}},
       {{1, 512, 14, 14}},
       {"conv2d", "batch_norm", "relu"}},
      {"rnn_cell", {{1, 128}, {1, 128}}, {{1, 128}}, {"dense", "dense", "add", "tanh"}},
      {"lstm_cell",
       {{1, 128}, {1, 128}, {1, 128}},
       {{1, 128}, {1, 128}},
       {"dense", "dense", "add", "take", "sigmoid", "take", "sigmoid", "take", "tanh", "take",
        "sigmoid", "multiply", "multiply", "add", "tanh", "multiply"}},
  };
  return *all;
}

class FusionWorkloadTest : public ::testing::TestWithParam<Expected> {};

std::vector<std::vector<int64_t>> Shapes(const graph::Graph& g,
                                         const std::vector<graph::ValueId>& ids) {
  std::vector<std::vector<int64_t>> shapes;
  for (graph::ValueId id : ids) shapes.push_back(g.type(id).shape);
  return shapes;
}

TEST_P(FusionWorkloadTest, ShapesOperatorsAndActivations) {
  const Expected& want = GetParam();
  absl::StatusOr<graph::Graph> g = BuildNetwork(want.name, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Shapes(*g, g->inputs), want.inputs);
  EXPECT_EQ(Shapes(*g, g->outputs), want.outputs);
  std::vector<std::string> ops;
  for (const graph::Node& node : g->nodes) ops.push_back(node.op);
  EXPECT_EQ(ops, want.ops);

  absl::StatusOr<std::vector<runtime::NDArray>> inputs = NetworkInputs(want.name, *g, 1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<std::vector<runtime::NDArray>> outputs = baselines::EvaluateReference(*g, *inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  // O(1) and not constant: the workloads compute something a wrong kernel would change.
  for (const runtime::NDArray& out : *outputs) {
    double sum = 0, sum_sq = 0;
    const float* p = out.data<float>();
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      ASSERT_TRUE(std::isfinite(p[i]));
      sum += p[i];
      sum_sq += static_cast<double>(p[i]) * p[i];
    }
    const double n = static_cast<double>(out.NumElements());
    const double stddev = std::sqrt(std::max(0.0, sum_sq / n - (sum / n) * (sum / n)));
    EXPECT_GT(stddev, 0.05) << want.name;
    EXPECT_LT(stddev, 5.0) << want.name;
  }
}

// Each workload compiled as Fig. 4 compares it: the graph passes on, fusion off and on; the
// outputs equal the per-node libtorch reference, and fusion makes fewer kernel calls.
TEST_P(FusionWorkloadTest, CompiledWithAndWithoutFusionMatchesTheReference) {
  const Expected& want = GetParam();
  absl::StatusOr<graph::Graph> g = BuildNetwork(want.name, {});
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<runtime::NDArray>> inputs = NetworkInputs(want.name, *g, 1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<std::vector<runtime::NDArray>> reference =
      baselines::EvaluateReference(*g, *inputs);
  ASSERT_TRUE(reference.ok()) << reference.status();
  size_t steps[2] = {0, 0};
  for (bool fuse : {false, true}) {
    absl::StatusOr<driver::CompiledModel> m = driver::Compile(
        *g, target::Target::Llvm(), nullptr, {.optimize_graph = true, .fuse = fuse});
    ASSERT_TRUE(m.ok()) << m.status();
    std::cout << want.name << (fuse ? " fused" : " unfused") << ": " << m->steps.size()
              << " steps (" << m->NumFusedSteps() << " fused)\n";
    steps[fuse ? 1 : 0] = m->steps.size();
    absl::StatusOr<runtime::GraphExecutor> exec = driver::MakeExecutor(*m);
    ASSERT_TRUE(exec.ok()) << exec.status();
    absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(*inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    absl::Status same = ops::CompareOutputs(*got, *reference, {.atol = 1e-3, .rtol = 1e-3});
    EXPECT_TRUE(same.ok()) << want.name << (fuse ? " fused: " : " unfused: ") << same;
  }
  EXPECT_LT(steps[1], steps[0]) << want.name;
}

INSTANTIATE_TEST_SUITE_P(All, FusionWorkloadTest, ::testing::ValuesIn(AllExpected()),
                         [](const ::testing::TestParamInfo<Expected>& info) {
                           return info.param.name;
                         });

// The graph of one opaque cell operator on the constants of `g` (same names) and its inputs:
// torch's own cell.
absl::StatusOr<graph::Graph> TorchCellGraph(const graph::Graph& g, const std::string& op) {
  graph::Builder b;
  std::vector<graph::ValueId> in;
  for (graph::ValueId id : g.inputs) in.push_back(b.Input(g.value(id).name, g.type(id)));
  for (const char* name : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
    bool found = false;
    for (const graph::Value& v : g.values) {
      if (v.name == name) {
        in.push_back(b.Constant(name, v.data));
        found = true;
      }
    }
    if (!found) return absl::NotFoundError(name);
  }
  for (graph::ValueId out : b.Add(op, in, {}, "cell")) b.Output(out);
  return b.Finish();
}

TEST(FusionWorkloadsTest, CellsComputeWhatTorchsCellsCompute) {
  for (const char* name : {"rnn_cell", "lstm_cell"}) {
    absl::StatusOr<graph::Graph> g = BuildNetwork(name, {.batch = 3, .seed = 5});
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<graph::Graph> torch_cell = TorchCellGraph(*g, name);
    ASSERT_TRUE(torch_cell.ok()) << torch_cell.status();
    absl::StatusOr<std::vector<runtime::NDArray>> inputs = NetworkInputs(name, *g, 2);
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    absl::StatusOr<std::vector<runtime::NDArray>> ours = baselines::EvaluateReference(*g, *inputs);
    ASSERT_TRUE(ours.ok()) << ours.status();
    absl::StatusOr<std::vector<runtime::NDArray>> torch =
        baselines::EvaluateReference(*torch_cell, *inputs);
    ASSERT_TRUE(torch.ok()) << torch.status();
    absl::Status same = ops::CompareOutputs(*ours, *torch, {.atol = 1e-5, .rtol = 1e-5});
    EXPECT_TRUE(same.ok()) << name << ": " << same;
  }
}

TEST(FusionWorkloadsTest, ListedApartFromTheNetworks) {
  EXPECT_EQ(FusionWorkloadNames(), (std::vector<std::string>{"conv_bn_relu", "depthwise_bn_relu",
                                                             "rnn_cell", "lstm_cell"}));
  EXPECT_EQ(FusionWorkloads().size(), 4u);
  const std::vector<std::string> workloads = FusionWorkloadNames();
  for (const std::string& name : NetworkNames()) {
    EXPECT_EQ(std::count(workloads.begin(), workloads.end(), name), 0) << name;
  }
  absl::StatusOr<graph::Graph> g = BuildNetwork("gru_cell", {});
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("the fusion workloads conv_bn_relu, depthwise_bn_relu, rnn_cell, "
                        "lstm_cell"));
  absl::StatusOr<graph::Graph> batch3 = BuildNetwork("lstm_cell", {.batch = 3});
  ASSERT_TRUE(batch3.ok()) << batch3.status();
  EXPECT_EQ(batch3->type(batch3->outputs[1]).shape, (std::vector<int64_t>{3, 128}));
}

}  // namespace
}  // namespace tessel::workloads::networks
