// Compiled graphs against the libtorch reference (baselines::EvaluateReference), kernel sharing,
// tuned configs from a log, and Compile's errors.
#include "compiler/driver/compile_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "baselines/torch/graph_reference.h"
#include "compiler/driver/test_graphs.h"
#include "compiler/graph/builder.h"
#include "compiler/graph/op_registry.h"
#include "compiler/ops/op_runner.h"
#include "compiler/target/host_target.h"
#include "search/records/log.h"

namespace tessel::driver {
namespace {

using runtime::KernelArg;
using ::testing::HasSubstr;

const CompileOptions kAsGiven{.optimize_graph = false};

// Compiles, runs and compares with libtorch; returns the model for further checks.
CompiledModel ExpectMatchesReference(const testing::TestGraph& t,
                                     const ops::Tolerance& tolerance = {},
                                     const CompileOptions& options = kAsGiven) {
  absl::StatusOr<CompiledModel> model = Compile(t.graph, target::Target::Llvm(), nullptr, options);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  absl::StatusOr<runtime::GraphExecutor> exec = MakeExecutor(*model);
  EXPECT_TRUE(exec.ok()) << exec.status();
  if (!exec.ok()) return *std::move(model);
  absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(t.inputs);
  EXPECT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<runtime::NDArray>> want =
      baselines::EvaluateReference(t.graph, t.inputs);
  EXPECT_TRUE(want.ok()) << want.status();
  if (got.ok() && want.ok()) {
    absl::Status same = ops::CompareOutputs(*got, *want, tolerance);
    EXPECT_TRUE(same.ok()) << same;
  }
  // Every x86 template's host transforms are understood (kernel_connection.h): none runs its
  // prepare or its finish at run time.
  for (const CompiledStep& step : model->steps) {
    const std::string& name = model->graph.nodes[static_cast<size_t>(step.master)].name;
    for (const KernelArg& a : step.args) EXPECT_NE(a.source, KernelArg::Source::kPrepare) << name;
    // Bit-serial convolutions compute NHWC and transpose in finish.
    if (model->kernels[static_cast<size_t>(step.kernel)].task.template_name !=
        "bitserial_conv2d_nhwc.x86") {
      EXPECT_NE(step.result_mode, runtime::ResultMode::kFinish) << name;
    }
  }
  return *std::move(model);
}

std::set<std::string> Templates(const CompiledModel& m) {
  std::set<std::string> names;
  for (const CompiledKernel& k : m.kernels) names.insert(k.task.template_name);
  return names;
}

// The step that computes the node called `name`.
const CompiledStep& StepOf(const CompiledModel& m, const std::string& name) {
  for (const CompiledStep& step : m.steps) {
    for (int n : step.nodes) {
      if (m.graph.nodes[static_cast<size_t>(n)].name == name) return step;
    }
  }
  ADD_FAILURE() << "no node " << name;
  static const CompiledStep none;
  return none;
}

// The graphs below together use every graph operator (a new operator needs a place in them).
TEST(CompileModelTest, TestGraphsCoverEveryOperator) {
  std::set<std::string> used;
  for (auto make : {testing::ConvolutionGraph, testing::ElementwiseAndShapeGraph,
                    testing::RecurrentGraph, testing::BitserialGraph, testing::Int8Graph}) {
    absl::StatusOr<testing::TestGraph> t = make();
    ASSERT_TRUE(t.ok()) << t.status();
    for (const graph::Node& n : t->graph.nodes) used.insert(n.op);
  }
  for (const std::string& op : graph::OpDefNames()) EXPECT_TRUE(used.contains(op)) << op;
}

// The same graphs through the graph optimizations (folding, fusion, memory planning).
TEST(CompileModelTest, OptimizedConvolutionGraphMatchesLibtorch) {
  absl::StatusOr<testing::TestGraph> t = testing::ConvolutionGraph();
  ASSERT_TRUE(t.ok()) << t.status();
  CompiledModel m = ExpectMatchesReference(*t, {.atol = 2e-3, .rtol = 2e-3}, {});
  EXPECT_GT(m.NumFusedSteps(), 0);
  EXPECT_LT(m.steps.size(), m.graph.nodes.size());
}

TEST(CompileModelTest, OptimizedOtherGraphsMatchLibtorch) {
  for (auto make : {testing::ElementwiseAndShapeGraph, testing::RecurrentGraph,
                    testing::BitserialGraph, testing::Int8Graph}) {
    absl::StatusOr<testing::TestGraph> t = make();
    ASSERT_TRUE(t.ok()) << t.status();
    ExpectMatchesReference(*t, {}, {});
  }
}

TEST(CompileModelTest, ConvolutionsMatchLibtorch) {
  absl::StatusOr<testing::TestGraph> t = testing::ConvolutionGraph();
  ASSERT_TRUE(t.ok()) << t.status();
  CompiledModel m = ExpectMatchesReference(*t, {.atol = 2e-3, .rtol = 2e-3});
  for (const char* name : {"conv2d_winograd.x86", "conv2d_nchwc.x86", "depthwise_conv2d_nchwc.x86",
                           "conv2d_nchw.x86"}) {
    EXPECT_TRUE(Templates(m).contains(name)) << name;
  }
  // The two Winograd nodes share their task, kernel and transformed weight.
  const CompiledStep& a = StepOf(m, "winograd_a");
  const CompiledStep& b = StepOf(m, "winograd_b");
  EXPECT_EQ(a.kernel, b.kernel);
  // One kernel per distinct task: the Winograd pair and the two adds of one shape share theirs.
  EXPECT_EQ(m.kernels.size(), m.graph.nodes.size() - 2);
  ASSERT_EQ(a.args.size(), 2u);
  EXPECT_EQ(a.args[0].source, KernelArg::Source::kPackChannels);
  EXPECT_EQ(a.args[1].source, KernelArg::Source::kParameter);
  EXPECT_EQ(a.args[1].index, b.args[1].index);
  EXPECT_EQ(a.result_mode, runtime::ResultMode::kUnpackChannels);
  // dense passes its bias through unchanged: the parameter is the graph's constant itself.
  const CompiledStep& fc = StepOf(m, "fc");
  ASSERT_EQ(fc.args.size(), 3u);
  EXPECT_EQ(fc.args[0].source, KernelArg::Source::kInput);
  const runtime::NDArray& bias = m.parameters[static_cast<size_t>(fc.args[2].index)];
  bool shared = false;
  for (const graph::Value& v : m.graph.values)
    shared |= v.name == "fc.bias" && v.data.same_as(bias);
  EXPECT_TRUE(shared);
  EXPECT_EQ(m.warnings.size(), 1u);  // no log
  EXPECT_GT(m.stats.total, 0);
}

TEST(CompileModelTest, ElementwiseAndShapeOperatorsMatchLibtorch) {
  absl::StatusOr<testing::TestGraph> t = testing::ElementwiseAndShapeGraph();
  ASSERT_TRUE(t.ok()) << t.status();
  CompiledModel m = ExpectMatchesReference(*t);
  // Element-wise templates reshape in prepare and finish: the kernels read and write the values.
  for (const CompiledStep& step : m.steps) {
    if (m.graph.nodes[static_cast<size_t>(step.master)].op == "sigmoid") {
      EXPECT_EQ(step.args[0].source, KernelArg::Source::kReshape);
      EXPECT_EQ(step.result_mode, runtime::ResultMode::kDirect);
    }
  }
}

TEST(CompileModelTest, RecurrentCellsShareWeightsAndMatchLibtorch) {
  absl::StatusOr<testing::TestGraph> t = testing::RecurrentGraph();
  ASSERT_TRUE(t.ok()) << t.status();
  CompiledModel m = ExpectMatchesReference(*t);
  const CompiledStep& s1 = StepOf(m, "step1");
  const CompiledStep& s2 = StepOf(m, "step2");
  EXPECT_EQ(s1.kernel, s2.kernel);
  ASSERT_EQ(s1.args.size(), s2.args.size());
  for (size_t a = 0; a < s1.args.size(); ++a) {
    EXPECT_EQ(s1.args[a].source, s2.args[a].source);
    EXPECT_EQ(s1.args[a].index, s2.args[a].index);
  }
}

TEST(CompileModelTest, BitserialOperatorsMatchLibtorch) {
  absl::StatusOr<testing::TestGraph> t = testing::BitserialGraph();
  ASSERT_TRUE(t.ok()) << t.status();
  ExpectMatchesReference(*t);
}

// A log with a non-fallback config for the dense task: the node uses it; the untuned tasks warn
// once each.
TEST(CompileModelTest, UsesTheTunedConfigAndWarnsOncePerUntunedTask) {
  absl::StatusOr<testing::TestGraph> t = testing::TinyGraph();
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<target::Target> target = target::ResolveCompileTarget(target::Target::Llvm());
  ASSERT_TRUE(target.ok()) << target.status();
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(*target);
  ASSERT_TRUE(facts.ok());
  const graph::Node& fc = t->graph.nodes.back();
  ASSERT_EQ(fc.op, "dense");
  absl::StatusOr<nlohmann::json> args = graph::OpArgsOf(t->graph, fc);
  ASSERT_TRUE(args.ok());
  search::Task task{.template_name = "dense_pack.x86", .args = *args, .target = *target};
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, *facts);
  ASSERT_TRUE(space.ok()) << space.status();
  const ops::Template* dense = *ops::FindTemplate("dense_pack.x86");
  const search::Config fallback = dense->fallback(*space, task.args, *facts);
  std::mt19937_64 rng(3);
  search::Config chosen = space->Neighbour(fallback, rng);
  ASSERT_FALSE(chosen == fallback);

  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string log_path = std::string(dir ? dir : "/tmp") + "/tuned.jsonl";
  std::remove(log_path.c_str());
  {
    absl::StatusOr<search::LogWriter> writer = search::LogWriter::Open(log_path);
    ASSERT_TRUE(writer.ok()) << writer.status();
    search::Record good, worse;
    good.task = worse.task = task;
    good.config = chosen.ToJson();
    good.config_index = chosen.index();
    good.result.costs = {1e-6};
    worse.config = fallback.ToJson();
    worse.config_index = fallback.index();
    worse.result.costs = {2e-6};
    ASSERT_TRUE(writer->Append({worse, good}).ok());
  }
  absl::StatusOr<search::ApplyHistoryBest> log = search::ApplyHistoryBest::FromLogs({log_path});
  ASSERT_TRUE(log.ok()) << log.status();

  // Two pooling nodes of one task: still one warning for it; none for the relu between them,
  // which has nothing to tune (WorthTuning).
  graph::Builder b;
  graph::ValueId x = b.Input("x", {{1, 16, 8, 8}});
  const nlohmann::json pool = {{"kh", 3}, {"kw", 3}, {"pad", {1, 1, 1, 1}}};
  graph::ValueId y = b.Op("max_pool2d", {x}, pool, "pool_a");
  y = b.Op("relu", {y}, {}, "relu");
  y = b.Op("max_pool2d", {y}, pool, "pool_b");
  b.Output(y);
  absl::StatusOr<graph::Graph> pools = b.Finish();
  ASSERT_TRUE(pools.ok()) << pools.status();
  absl::StatusOr<CompiledModel> twice = Compile(*pools, target::Target::Llvm(), &*log, kAsGiven);
  ASSERT_TRUE(twice.ok()) << twice.status();
  ASSERT_EQ(twice->warnings.size(), 1u);
  EXPECT_THAT(twice->warnings[0], HasSubstr("no tuned config for node 'pool_a' and 1 more"));

  absl::StatusOr<CompiledModel> m = Compile(t->graph, target::Target::Llvm(), &*log, kAsGiven);
  ASSERT_TRUE(m.ok()) << m.status();
  const CompiledKernel& k = m->kernels[static_cast<size_t>(m->steps.back().kernel)];
  EXPECT_TRUE(k.tuned);
  EXPECT_TRUE(k.config == chosen) << k.config.ToString() << " vs " << chosen.ToString();
  EXPECT_EQ(m->NumTuned(), 1);
  // TinyGraph is conv -> relu -> dense: the conv is the one untuned task worth tuning.
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_THAT(m->warnings[0], HasSubstr("no tuned config for node 'conv'"));

  // The tuned kernel computes the same.
  absl::StatusOr<runtime::GraphExecutor> exec = MakeExecutor(*m);
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(t->inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<runtime::NDArray>> want =
      baselines::EvaluateReference(t->graph, t->inputs);
  ASSERT_TRUE(want.ok());
  EXPECT_TRUE(ops::CompareOutputs(*got, *want, {}).ok());
}

// The target a model compiles for names this CPU; a log tuned on another CPU is not applied, and
// the warning says which CPU it was tuned for.
TEST(CompileModelTest, ALogForAnotherCpuIsNotApplied) {
  absl::StatusOr<target::Target> target = target::ResolveCompileTarget(target::Target::Llvm());
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_NE(target->Option("mcpu"), "native") << *target;
  EXPECT_TRUE(target->HasFlag("fast-math-contract")) << *target;
  absl::StatusOr<testing::TestGraph> t = testing::TinyGraph();
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(*target);
  ASSERT_TRUE(facts.ok());
  absl::StatusOr<nlohmann::json> args = graph::OpArgsOf(t->graph, t->graph.nodes.back());
  ASSERT_TRUE(args.ok());
  const std::string other = target->Option("mcpu") == "haswell"
                                ? "llvm -mcpu=skylake-avx512 -fast-math-contract"
                                : "llvm -mcpu=haswell -fast-math-contract";
  search::Task task{
      .template_name = "dense_pack.x86", .args = *args, .target = *target::Target::Parse(other)};
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, *facts);
  ASSERT_TRUE(space.ok()) << space.status();
  const ops::Template* dense = *ops::FindTemplate("dense_pack.x86");
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string log_path = std::string(dir ? dir : "/tmp") + "/other_cpu.jsonl";
  std::remove(log_path.c_str());
  {
    absl::StatusOr<search::LogWriter> writer = search::LogWriter::Open(log_path);
    ASSERT_TRUE(writer.ok()) << writer.status();
    search::Record record;
    record.task = task;
    const search::Config config = dense->fallback(*space, task.args, *facts);
    record.config = config.ToJson();
    record.config_index = config.index();
    record.result.costs = {1e-6};
    ASSERT_TRUE(writer->Append({record}).ok());
  }
  absl::StatusOr<search::ApplyHistoryBest> log = search::ApplyHistoryBest::FromLogs({log_path});
  ASSERT_TRUE(log.ok()) << log.status();
  absl::StatusOr<CompiledModel> m = Compile(t->graph, target::Target::Llvm(), &*log, kAsGiven);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->NumTuned(), 0);
  bool named = false;
  for (const std::string& w : m->warnings) {
    named = named || (w.find("no tuned config for node 'fc'") != std::string::npos &&
                      w.find("tuned for '" + other + "' only, another CPU") != std::string::npos);
  }
  EXPECT_TRUE(named) << ::testing::PrintToString(m->warnings);
}

TEST(CompileModelTest, BadTargetsAreErrors) {
  absl::StatusOr<testing::TestGraph> t = testing::TinyGraph();
  ASSERT_TRUE(t.ok());
  auto compile_error = [&](const std::string& text) {
    return std::string(Compile(t->graph, *target::Target::Parse(text), nullptr).status().message());
  };
  EXPECT_THAT(compile_error("cuda"), HasSubstr("target 'cuda'"));
  EXPECT_THAT(compile_error("llvm -mtriple=aarch64-linux-gnu"),
              HasSubstr("not this machine's architecture"));
  EXPECT_THAT(compile_error("llvm -mcpu=nosuchcpu"), HasSubstr("nosuchcpu"));
}

TEST(CompileModelTest, ExecutorChecksItsInputs) {
  absl::StatusOr<testing::TestGraph> t = testing::TinyGraph();
  ASSERT_TRUE(t.ok());
  absl::StatusOr<CompiledModel> m = Compile(t->graph, target::Target::Llvm(), nullptr);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<runtime::GraphExecutor> exec = MakeExecutor(*m);
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_THAT(std::string(exec->Run({}).status().message()), HasSubstr("takes 1 inputs (x)"));
  runtime::NDArray wrong = testing::RandomArray({1, 16, 8, 9}, graph::kFloat32, 0, 1, 1);
  EXPECT_THAT(std::string(exec->Run({wrong}).status().message()),
              HasSubstr("input 'x' must be float32[1, 16, 8, 8], got float32[1, 16, 8, 9]"));
  EXPECT_THAT(std::string(exec->FindInput("y").status().message()),
              HasSubstr("no input 'y' (its inputs: x)"));
  // Two runs on the same input agree; outputs are copies.
  absl::StatusOr<std::vector<runtime::NDArray>> first = exec->Run(t->inputs);
  absl::StatusOr<std::vector<runtime::NDArray>> second = exec->Run(t->inputs);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_FALSE((*first)[0].same_as((*second)[0]));
  EXPECT_TRUE(ops::CompareOutputs(*first, *second, {.atol = 0, .rtol = 0}).ok());
}

}  // namespace
}  // namespace tessel::driver
