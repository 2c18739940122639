// ExtractTasks: ResNet-18's tasks are Table 2's conv2d layers and its dense layer, every
// convolution and dense node in one of them; and the keys are the ones Compile looks up: a log
// tuned for exactly the extracted tasks leaves no kernel of a graph untuned.
#include "compiler/driver/model_tasks.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "compiler/driver/compile_model.h"
#include "compiler/driver/optimize_graph.h"
#include "compiler/driver/test_graphs.h"
#include "compiler/graph/builder.h"
#include "search/records/apply_history_best.h"
#include "search/tuner/tune_tasks.h"
#include "workloads/layer_task.h"
#include "workloads/networks/network.h"
#include "workloads/table2.h"

namespace tessel::driver {
namespace {

std::string TempLog(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name + ".jsonl";
  std::filesystem::remove(path);
  return path;
}

TEST(ModelTasksTest, ResNet18HasTable2sConvolutionsAndItsDenseLayer) {
  absl::StatusOr<graph::Graph> g = workloads::networks::BuildNetwork("resnet18", {});
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<ModelTask>> tasks = ExtractTasks(*g, target::Target::Llvm());
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  for (const ModelTask& t : *tasks)
    std::cout << t.task.Key() << ": " << t.nodes.size() << " nodes, first " << t.nodes[0] << "\n";

  // Table 2's C1..C12 are ResNet-18's distinct convolutions, each one task, the very task
  // `tessel tune --workload C<i>` tunes (so a log of Table 2 applies to the network); except
  // C3, the 1x1 projection of the first stage that MXNet's ResNet-18 (the paper's) has and
  // torchvision's (workloads/networks/resnet18.cc) does not.
  int convolutions = 0;
  for (const ModelTask& t : *tasks) convolutions += t.task.template_name.starts_with("conv2d");
  EXPECT_EQ(convolutions, 11);
  for (const workloads::Layer& layer : workloads::Table2()) {
    if (layer.kind != workloads::LayerKind::kConv) continue;
    absl::StatusOr<search::Task> want =
        workloads::LayerTask(layer.name, *target::DescribeTarget(tasks->front().task.target));
    ASSERT_TRUE(want.ok()) << want.status();
    int found = 0;
    for (const ModelTask& t : *tasks) found += t.task == *want;
    EXPECT_EQ(found, layer.name == "C3" ? 0 : 1) << layer.name << ": " << want->Key();
  }
  // The 3x3 convolutions of a stage after its first share one task.
  for (const ModelTask& t : *tasks) {
    if (t.nodes[0] == "layer1.0.conv1") {
      EXPECT_EQ(t.nodes, (std::vector<std::string>{"layer1.0.conv1", "layer1.0.conv2",
                                                   "layer1.1.conv1", "layer1.1.conv2"}));
    }
  }
  int dense = 0;
  for (const ModelTask& t : *tasks) {
    if (t.task.template_name != "dense_pack.x86") continue;
    ++dense;
    EXPECT_EQ(t.task.args["m"], 1);
    EXPECT_EQ(t.task.args["n"], 1000);
    EXPECT_EQ(t.task.args["k"], 512);
    EXPECT_EQ(t.nodes, std::vector<std::string>{"fc"});
  }
  EXPECT_EQ(dense, 1);

  // Every convolution and dense node of the graph Compile compiles is in exactly one task;
  // element-wise nodes in none.
  absl::StatusOr<graph::Graph> optimized = OptimizeGraph(*g);
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  std::map<std::string, std::string> op_of;
  for (const graph::Node& n : optimized->nodes) op_of[n.name] = n.op;
  std::set<std::string> listed;
  for (const ModelTask& t : *tasks) {
    ASSERT_FALSE(t.nodes.empty()) << t.task.Key();
    for (const std::string& node : t.nodes) {
      EXPECT_TRUE(listed.insert(node).second) << node << " in two tasks";
      ASSERT_TRUE(op_of.contains(node)) << node;
      EXPECT_NE(op_of[node], "add") << node;
      EXPECT_NE(op_of[node], "relu") << node;
    }
  }
  for (const auto& [name, op] : op_of) {
    if (op == "conv2d" || op == "dense") {
      EXPECT_TRUE(listed.contains(name)) << name;
    }
  }
}

// x -> conv 3x3 + bias -> relu -> conv 1x1 -> relu -> max_pool 2x2, and z -> dense + bias ->
// relu -> dense: the element-wise nodes fuse, so every kernel is one of a tunable task, but for
// the layout transforms the layout pass adds around the blocked convolutions.
graph::Graph TunableGraph() {
  graph::Builder b;
  auto constant = [&](const std::string& name, std::vector<int64_t> shape, uint32_t seed) {
    return b.Constant(name, testing::RandomArray(shape, {kDLFloat, 32, 1}, -0.2, 0.2, seed));
  };
  graph::ValueId x = b.Input("x", {{1, 16, 8, 8}});
  graph::ValueId y =
      b.Op("conv2d", {x, constant("w1", {16, 16, 3, 3}, 1)}, {{"pad", {1, 1, 1, 1}}}, "conv1");
  y = b.Op("add", {y, constant("b1", {16, 1, 1}, 2)}, {}, "conv1.bias");
  y = b.Op("relu", {y}, {}, "relu1");
  y = b.Op("conv2d", {y, constant("w2", {32, 16, 1, 1}, 3)}, {}, "conv2");
  y = b.Op("relu", {y}, {}, "relu2");
  y = b.Op("max_pool2d", {y}, {{"kh", 2}, {"kw", 2}, {"stride", {2, 2}}}, "pool");
  b.Output(y);
  graph::ValueId z = b.Input("z", {{2, 64}});
  graph::ValueId d =
      b.Op("dense", {z, constant("fc1.w", {32, 64}, 4), constant("fc1.b", {32}, 5)}, {}, "fc1");
  d = b.Op("relu", {d}, {}, "relu3");
  d = b.Op("dense", {d, constant("fc2.w", {10, 32}, 6)}, {}, "fc2");
  b.Output(d);
  absl::StatusOr<graph::Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

// A measurement that needs no machine: every config succeeds, cost by its index.
search::MeasureFn Synthetic() {
  return [](const search::Task&, const std::vector<search::Config>& configs) {
    std::vector<search::MeasureResult> results(configs.size());
    for (size_t i = 0; i < configs.size(); ++i)
      results[i].costs = {1e-5 * static_cast<double>(1 + configs[i].index() % 7)};
    return absl::StatusOr<std::vector<search::MeasureResult>>(results);
  };
}

// Tunes the tasks ExtractTasks gives for g with these options into a fresh log, compiles g with
// the log and the same options, and checks that every extracted task is a kernel of the model
// with a tuned config. Returns the compiled model.
CompiledModel TuneAndCompile(const graph::Graph& g, const CompileOptions& options,
                             const std::string& name) {
  absl::StatusOr<std::vector<ModelTask>> tasks = ExtractTasks(g, target::Target::Llvm(), options);
  EXPECT_TRUE(tasks.ok()) << tasks.status();
  if (!tasks.ok()) return {};
  std::vector<search::Task> list;
  for (const ModelTask& t : *tasks) list.push_back(t.task);
  search::TuneTasksOptions tuning;
  tuning.tuner = {.cost_model = "", .explorer = "random", .trials = 3};
  tuning.tuner.log_path = TempLog(name);
  absl::StatusOr<std::vector<search::TuneResult>> tuned =
      search::TuneTasks(list, {}, tuning, Synthetic(), nullptr);
  EXPECT_TRUE(tuned.ok()) << tuned.status();

  absl::StatusOr<search::ApplyHistoryBest> log =
      search::ApplyHistoryBest::FromLogs({tuning.tuner.log_path});
  EXPECT_TRUE(log.ok()) << log.status();
  absl::StatusOr<CompiledModel> model = Compile(g, target::Target::Llvm(), &*log, options);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  std::set<std::string> kernel_keys;
  for (const CompiledKernel& k : model->kernels) {
    kernel_keys.insert(k.task.Key());
    bool extracted = false;
    for (const search::Task& t : list) extracted |= t.Key() == k.task.Key();
    EXPECT_EQ(k.tuned, extracted) << k.function << ": " << k.task.Key();
  }
  for (const search::Task& t : list) EXPECT_TRUE(kernel_keys.contains(t.Key())) << t.Key();
  // Compile warns about the kernels it found no config for: none of them is a tuned task.
  for (const std::string& w : model->warnings) {
    for (const search::Task& t : list) EXPECT_EQ(w.find(t.Key()), std::string::npos) << w;
  }
  return *std::move(model);
}

TEST(ModelTasksTest, CompileFindsEveryExtractedTaskInTheLog) {
  const graph::Graph g = TunableGraph();
  absl::StatusOr<std::vector<ModelTask>> tasks = ExtractTasks(g, target::Target::Llvm());
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  std::set<std::string> nodes;
  for (const ModelTask& t : *tasks) nodes.insert(t.nodes.begin(), t.nodes.end());
  EXPECT_EQ(nodes, (std::set<std::string>{"conv1", "conv2", "pool", "fc1", "fc2"}));

  CompiledModel model = TuneAndCompile(g, {}, "tunable");
  EXPECT_EQ(model.NumTuned(), 5);
}

// Without graph optimizations nothing fuses: the element-wise nodes are kernels of their own
// (untuned, warned about), the extracted tasks are still exactly the tuned kernels.
TEST(ModelTasksTest, UnoptimizedGraphsTasksAreTheUnfusedKernels) {
  absl::StatusOr<testing::TestGraph> tiny = testing::TinyGraph();
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  CompiledModel model = TuneAndCompile(tiny->graph, {.optimize_graph = false}, "unoptimized");
  EXPECT_GT(model.kernels.size(), 2u);
  EXPECT_EQ(model.NumTuned(), 2);
}

TEST(ModelTasksTest, ErrorsAreCompilesNamingTheTarget) {
  absl::StatusOr<testing::TestGraph> tiny = testing::TinyGraph();
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  absl::StatusOr<std::vector<ModelTask>> tasks =
      ExtractTasks(tiny->graph, *target::Target::Parse("opencl"));
  ASSERT_FALSE(tasks.ok());
  EXPECT_NE(tasks.status().message().find("opencl"), std::string::npos) << tasks.status();
}

}  // namespace
}  // namespace tessel::driver
