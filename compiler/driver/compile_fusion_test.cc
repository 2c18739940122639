// Fused groups compiled as one kernel (kernel_groups.h, fused_tail.h) on small graphs, against
// the libtorch evaluation of the same graph node by node: every tail operator with broadcast
// inputs, a blocked (NCHWc) and a logical (dense) master, the channel-strided rule, a group
// split where a tail cannot go on, casts beside fused groups, element-wise groups without a
// master, and a tuning log's config applied to a fused kernel.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "baselines/torch/graph_reference.h"
#include "compiler/driver/compile_check.h"
#include "compiler/driver/compile_model.h"
#include "compiler/driver/test_graphs.h"
#include "compiler/graph/builder.h"
#include "compiler/graph/passes/fuse_ops.h"
#include "compiler/ops/op_runner.h"
#include "compiler/target/host_target.h"
#include "compiler/testing/test_target.h"
#include "search/records/log.h"

namespace tessel::driver {
namespace {

using graph::Builder;
using graph::ValueId;
using testing::RandomArray;
using testing::TestGraph;

TestGraph Finish(Builder& b, std::vector<runtime::NDArray> inputs) {
  absl::StatusOr<graph::Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return {g.ok() ? *std::move(g) : graph::Graph{}, std::move(inputs)};
}

runtime::NDArray Random(const std::vector<int64_t>& shape, uint32_t seed, double low = -1,
                        double high = 1) {
  return RandomArray(shape, graph::kFloat32, low, high, seed);
}

// These tests are about fused tails as such, so the layout pass is off unless a test turns it
// on (compile_layout_test has it on).
CompiledModel CompileAndCheck(const TestGraph& t,
                              const CompileOptions& options = {.alter_layout = false},
                              const search::ApplyHistoryBest* log = nullptr) {
  return testing::ExpectMatchesReference(t, options, log);
}

// Node names of each step, the master first: {"conv", "bias", ...}.
std::vector<std::vector<std::string>> StepNodes(const CompiledModel& m) {
  std::vector<std::vector<std::string>> steps;
  for (const CompiledStep& step : m.steps) {
    std::vector<std::string> names = {m.graph.nodes[static_cast<size_t>(step.master)].name};
    for (int n : step.nodes) {
      if (n != step.master) names.push_back(m.graph.nodes[static_cast<size_t>(n)].name);
    }
    steps.push_back(std::move(names));
  }
  return steps;
}

// A conv2d (NCHWc template) with every tail operator after it, reading inputs of several
// broadcast shapes, its own output twice, and a node over a graph input only (defined before
// the conv): all one kernel.
TestGraph EveryTailOperator() {
  Builder b;
  ValueId g = b.Input("g", {{32, 1, 1}});
  ValueId x = b.Input("x", {{1, 16, 8, 8}});
  ValueId scale = b.Input("scale", {{1, 32, 1, 1}});
  ValueId row = b.Input("row", {{8}});
  ValueId relu_g = b.Op("relu", {g}, {}, "relu_g");
  ValueId w = b.Constant("w", Random({32, 16, 3, 3}, 10, -0.2, 0.2));
  ValueId y = b.Op("conv2d", {x, w}, {{"pad", {1, 1, 1, 1}}}, "conv");
  ValueId t = b.Op("add", {y, b.Constant("bias", Random({32, 1, 1}, 11))}, {}, "bias_add");
  t = b.Op("leaky_relu", {t}, {{"alpha", 0.2}}, "leaky");
  t = b.Op("multiply", {scale, t}, {}, "scale_mul");
  t = b.Op("maximum", {t, row}, {}, "row_max");
  t = b.Op("subtract", {t, y}, {}, "minus_conv");
  t = b.Op("clip", {t}, {{"min", -0.5}, {"max", 0.7}}, "clip");
  t = b.Op("divide", {t, b.Constant("two", Random({1}, 12, 1.5, 2.5))}, {}, "halve");
  t = b.Op("sigmoid", {t}, {}, "sigmoid");
  t = b.Op("tanh", {t}, {}, "tanh");
  t = b.Op("minimum", {t, relu_g}, {}, "min_g");
  b.Output(t);
  return Finish(b, {Random({32, 1, 1}, 1), Random({1, 16, 8, 8}, 2), Random({1, 32, 1, 1}, 3),
                    Random({8}, 4)});
}

TEST(CompileFusionTest, EveryTailOperatorFusesIntoOneKernel) {
  const TestGraph t = EveryTailOperator();
  const CompiledModel m = CompileAndCheck(t);
  ASSERT_EQ(m.steps.size(), 1u);
  const CompiledStep& step = m.steps[0];
  EXPECT_EQ(step.nodes.size(), m.graph.nodes.size());
  const CompiledKernel& k = m.kernels[static_cast<size_t>(step.kernel)];
  EXPECT_EQ(k.task.template_name, "conv2d_nchwc.x86");
  EXPECT_EQ(k.tail,
            "relu(i0);add(v,i1);leaky_relu{\"alpha\":0.2}(t1);multiply(i2,t2);maximum(t3,i3);"
            "subtract(t4,v);clip{\"max\":0.7,\"min\":-0.5}(t5);divide(t6,i4);sigmoid(t7);"
            "tanh(t8);minimum(t9,t0) i0=float32[32, 1, 1] i1=float32[32, 1, 1] "
            "i2=float32[1, 32, 1, 1] i3=float32[8] i4=float32[1]");
  // The kernel's inputs: the conv's, then the tail's in order of first use.
  std::vector<std::string> inputs;
  for (ValueId v : step.inputs) inputs.push_back(m.graph.value(v).name);
  EXPECT_EQ(inputs, (std::vector<std::string>{"x", "w", "g", "bias", "scale", "row", "two"}));
  EXPECT_EQ(step.result_mode, runtime::ResultMode::kUnpackChannels);
}

// dense (output stage in logical order) takes a full-size residual into its tail.
TEST(CompileFusionTest, DenseTakesAResidual) {
  Builder b;
  ValueId x = b.Input("x", {{4, 32}});
  ValueId r = b.Input("r", {{4, 16}});
  ValueId y =
      b.Op("dense", {x, b.Constant("w", Random({16, 32}, 5)), b.Constant("b", Random({16}, 6))}, {},
           "fc");
  y = b.Op("add", {y, r}, {}, "residual");
  y = b.Op("relu", {y}, {}, "relu");
  b.Output(y);
  const TestGraph t = Finish(b, {Random({4, 32}, 7), Random({4, 16}, 8)});
  const CompiledModel m = CompileAndCheck(t);
  EXPECT_EQ(StepNodes(m), (std::vector<std::vector<std::string>>{{"fc", "residual", "relu"}}));
}

// depthwise -> bias -> relu -> add(x): the blocked template stops before the channel-strided
// residual (TailRulesFor), unless the rule is overridden; both compute the same.
TEST(CompileFusionTest, BlockedTemplatesStopBeforeAStridedResidual) {
  Builder b;
  ValueId x = b.Input("x", {{1, 32, 8, 8}});
  ValueId y = b.Op("conv2d", {x, b.Constant("w", Random({32, 1, 3, 3}, 5))},
                   {{"pad", {1, 1, 1, 1}}, {"groups", 32}}, "dw");
  y = b.Op("add", {y, b.Constant("bias", Random({32, 1, 1}, 6))}, {}, "bias_add");
  y = b.Op("relu", {y}, {}, "relu");
  y = b.Op("add", {y, x}, {}, "residual");
  b.Output(y);
  const TestGraph t = Finish(b, {Random({1, 32, 8, 8}, 7)});
  const CompiledModel split = CompileAndCheck(t);
  EXPECT_EQ(StepNodes(split),
            (std::vector<std::vector<std::string>>{{"dw", "bias_add", "relu"}, {"residual"}}));
  EXPECT_EQ(split.kernels[0].task.template_name, "depthwise_conv2d_nchwc.x86");
  const CompiledModel fused = CompileAndCheck(
      t, {.alter_layout = false, .strided_tail_inputs = StridedTailInputs::kAlways});
  EXPECT_EQ(StepNodes(fused),
            (std::vector<std::vector<std::string>>{{"dw", "bias_add", "relu", "residual"}}));
  const CompiledModel never =
      CompileAndCheck(t, {.alter_layout = false, .strided_tail_inputs = StridedTailInputs::kNever});
  EXPECT_EQ(StepNodes(never), StepNodes(split));
}

// A batch_norm with statistics from graph inputs is not folded and fuses into the conv's group,
// but a tail cannot compute it: the conv keeps the prefix before it, the rest runs node by node.
TEST(CompileFusionTest, AGroupSplitsWhereTheTailCannotGoOn) {
  Builder b;
  ValueId x = b.Input("x", {{1, 8, 6, 6}});
  std::vector<ValueId> stats;
  for (const char* name : {"gamma", "beta", "mean", "var"}) stats.push_back(b.Input(name, {{16}}));
  ValueId y = b.Op("conv2d", {x, b.Constant("w", Random({16, 8, 3, 3}, 5))}, {}, "conv");
  y = b.Op("relu", {y}, {}, "relu");
  y = b.Op("batch_norm", {y, stats[0], stats[1], stats[2], stats[3]}, {}, "bn");
  y = b.Op("sigmoid", {y}, {}, "sigmoid");
  b.Output(y);
  const TestGraph t = Finish(b, {Random({1, 8, 6, 6}, 6), Random({16}, 7), Random({16}, 8),
                                 Random({16}, 9), Random({16}, 10, 0.5, 1.5)});
  const CompiledModel m = CompileAndCheck(t);
  EXPECT_EQ(StepNodes(m),
            (std::vector<std::vector<std::string>>{{"conv", "relu"}, {"bn"}, {"sigmoid"}}));
  // Fusion off: every node its own kernel.
  const CompiledModel off = CompileAndCheck(t, {.fuse = false, .alter_layout = false});
  EXPECT_EQ(off.steps.size(), 4u);
  EXPECT_EQ(off.NumFusedSteps(), 0);
}

// cast is injective, never a tail node: an int32 bias cast to float32 runs before the conv's
// kernel, which takes its output as a tail input; a cast of the conv group's output runs after
// it; an add whose only reader is a cast joins the cast's group, which has no master and runs
// node by node. All compute what libtorch does.
TEST(CompileFusionTest, CastsNextToAConvAndAnAdd) {
  Builder b;
  ValueId x = b.Input("x", {{1, 16, 8, 8}});
  ValueId ids = b.Input("ids", {{16, 1, 1}, DLDataType{kDLInt, 32, 1}});
  ValueId p = b.Input("p", {{2, 9}});
  ValueId q = b.Input("q", {{9}});
  ValueId bias = b.Op("cast", {ids}, {{"to", "float32"}}, "bias_float");
  ValueId y = b.Op("conv2d", {x, b.Constant("w", Random({16, 16, 3, 3}, 5, -0.2, 0.2))},
                   {{"pad", {1, 1, 1, 1}}}, "conv");
  y = b.Op("add", {y, bias}, {}, "bias_add");
  y = b.Op("relu", {y}, {}, "relu");
  b.Output(b.Op("cast", {y}, {{"to", "float64"}}, "to_double"));
  ValueId s = b.Op("add", {p, q}, {}, "sum");
  b.Output(b.Op("cast", {s}, {{"to", "int32"}}, "truncate"));
  const TestGraph t =
      Finish(b, {Random({1, 16, 8, 8}, 6), RandomArray({16, 1, 1}, {kDLInt, 32, 1}, -3, 3, 7),
                 Random({2, 9}, 8, -50, 50), Random({9}, 9, -50, 50)});
  const CompiledModel m = CompileAndCheck(t);
  EXPECT_THAT(StepNodes(m),
              ::testing::UnorderedElementsAre(std::vector<std::string>{"bias_float"},
                                              std::vector<std::string>{"conv", "bias_add", "relu"},
                                              std::vector<std::string>{"to_double"},
                                              std::vector<std::string>{"sum"},
                                              std::vector<std::string>{"truncate"}));
  for (const CompiledKernel& k : m.kernels) {
    EXPECT_EQ(k.tail.find("cast"), std::string::npos) << k.tail;
  }
  const graph::passes::FusionPlan plan = *graph::passes::FuseOps(t.graph);
  int sum = -1, truncate = -1;
  for (size_t n = 0; n < t.graph.nodes.size(); ++n) {
    if (t.graph.nodes[n].name == "sum") sum = static_cast<int>(n);
    if (t.graph.nodes[n].name == "truncate") truncate = static_cast<int>(n);
  }
  ASSERT_GE(sum, 0);
  ASSERT_GE(truncate, 0);
  EXPECT_EQ(plan.group_of[static_cast<size_t>(sum)], plan.group_of[static_cast<size_t>(truncate)]);
}

// Groups of element-wise nodes without a master run as one kernel each, led by their first
// element-wise node: LSTM gates (a broadcast constant among them), and a residual chain cut where
// an injective node (reshape) follows, with the reshape and the multiply after it on their own.
TEST(CompileFusionTest, ElementwiseGroupsWithoutAMasterRunAsOneKernel) {
  absl::StatusOr<TestGraph> gates = testing::LstmGatesGraph();
  ASSERT_TRUE(gates.ok()) << gates.status();
  const CompiledModel m = CompileAndCheck(*gates);
  EXPECT_THAT(StepNodes(m), ::testing::UnorderedElementsAre(
                                std::vector<std::string>{"biased_f", "forget", "kept", "in_gate",
                                                         "cell_in", "written", "next_c"},
                                std::vector<std::string>{"out_gate", "cell_out", "next_h"}));
  EXPECT_EQ(m.NumFusedSteps(), 2);
  const CompiledModel off = CompileAndCheck(*gates, {.fuse = false, .alter_layout = false});
  EXPECT_EQ(off.steps.size(), 10u);

  Builder b;
  ValueId x = b.Input("x", {{1, 16, 8, 8}});
  ValueId r = b.Input("r", {{1, 16, 8, 8}});
  ValueId y = b.Op("add", {x, b.Constant("bias", Random({16, 1, 1}, 3))}, {}, "biased");
  y = b.Op("add", {y, r}, {}, "residual");
  y = b.Op("relu", {y}, {}, "relu");
  y = b.Op("reshape", {y}, {{"newshape", {1, 16, 64}}}, "rows");
  b.Output(b.Op("multiply", {y, b.Constant("weights", Random({64}, 4))}, {}, "scale"));
  const TestGraph chain = Finish(b, {Random({1, 16, 8, 8}, 5), Random({1, 16, 8, 8}, 6)});
  EXPECT_THAT(
      StepNodes(CompileAndCheck(chain)),
      ::testing::ElementsAre(std::vector<std::string>{"biased", "residual", "relu"},
                             std::vector<std::string>{"rows"}, std::vector<std::string>{"scale"}));
}

// The same LSTM gates on the test target: this CPU, and in compile_fusion_test_opencl OpenCL on
// PoCL, whose element-wise templates take the tails too.
TEST(CompileFusionTest, LstmGatesOnTheTestTarget) {
  const target::Target on = tessel::testing::TestTarget();
  if (const std::string why = tessel::testing::WhyNotRunnable(on); !why.empty()) {
    GTEST_SKIP() << why;
  }
  absl::StatusOr<TestGraph> gates = testing::LstmGatesGraph();
  ASSERT_TRUE(gates.ok()) << gates.status();
  EXPECT_EQ(testing::ExpectMatchesReference(*gates, {}, nullptr, on).NumFusedSteps(), 2);
}

// Groups with the same master task and tail share a kernel; a different tail is another kernel
// of the same task.
TEST(CompileFusionTest, IdenticalFusedGroupsShareAKernel) {
  Builder b;
  ValueId x = b.Input("x", {{1, 16, 8, 8}});
  ValueId w = b.Constant("w", Random({16, 16, 3, 3}, 5, -0.3, 0.3));
  ValueId bias = b.Constant("bias", Random({16, 1, 1}, 6));
  ValueId y = x;
  for (const char* name : {"a", "b"}) {
    y = b.Op("conv2d", {y, w}, {{"pad", {1, 1, 1, 1}}}, std::string(name) + "_conv");
    y = b.Op("add", {y, bias}, {}, std::string(name) + "_bias");
    y = b.Op("relu", {y}, {}, std::string(name) + "_relu");
  }
  y = b.Op("conv2d", {y, w}, {{"pad", {1, 1, 1, 1}}}, "c_conv");
  y = b.Op("sigmoid", {y}, {}, "c_sigmoid");
  b.Output(y);
  const TestGraph t = Finish(b, {Random({1, 16, 8, 8}, 7)});
  const CompiledModel m = CompileAndCheck(t);
  ASSERT_EQ(m.steps.size(), 3u);
  EXPECT_EQ(m.steps[0].kernel, m.steps[1].kernel);
  EXPECT_NE(m.steps[0].kernel, m.steps[2].kernel);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[0].task, m.kernels[1].task);
  EXPECT_EQ(m.warnings.size(), 1u);  // no log

  // A log without the task: one warning for it, naming the nodes of both its kernels.
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string log_path = std::string(dir ? dir : "/tmp") + "/empty.jsonl";
  std::remove(log_path.c_str());
  ASSERT_TRUE(search::LogWriter::Open(log_path).ok());
  absl::StatusOr<search::ApplyHistoryBest> log = search::ApplyHistoryBest::FromLogs({log_path});
  ASSERT_TRUE(log.ok()) << log.status();
  absl::StatusOr<CompiledModel> logged =
      Compile(t.graph, target::Target::Llvm(), &*log, {.alter_layout = false});
  ASSERT_TRUE(logged.ok()) << logged.status();
  ASSERT_EQ(logged->warnings.size(), 1u);
  EXPECT_THAT(logged->warnings[0],
              ::testing::HasSubstr("no tuned config for node 'a_conv' and 2 more "
                                   "(conv2d_nchwc.x86)"));
}

// A log's best config for the conv's task applies to the fused conv + bias + relu kernel.
TEST(CompileFusionTest, ATunedConfigAppliesToAFusedGroup) {
  absl::StatusOr<TestGraph> tiny = testing::TinyGraph();  // conv -> relu -> dense
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  const graph::Graph& g = tiny->graph;
  absl::StatusOr<target::Target> target = target::ResolveCompileTarget(target::Target::Llvm());
  ASSERT_TRUE(target.ok()) << target.status();
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(*target);
  ASSERT_TRUE(facts.ok());
  const graph::Node& conv = g.nodes[0];
  ASSERT_EQ(conv.op, "conv2d");
  absl::StatusOr<nlohmann::json> args = graph::OpArgsOf(g, conv);
  ASSERT_TRUE(args.ok());
  search::Task task{.template_name = "conv2d_nchwc.x86", .args = *args, .target = *target};
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, *facts);
  ASSERT_TRUE(space.ok()) << space.status();
  const ops::Template* t = *ops::FindTemplate(task.template_name);
  const search::Config fallback = t->fallback(*space, task.args, *facts);
  std::mt19937_64 rng(5);
  const search::Config chosen = space->Neighbour(fallback, rng);
  ASSERT_FALSE(chosen == fallback);

  absl::StatusOr<search::ApplyHistoryBest> log =
      testing::LogWithConfig(task, chosen, "fused.jsonl");
  ASSERT_TRUE(log.ok()) << log.status();

  const CompiledModel m = CompileAndCheck(*tiny, {.alter_layout = false}, &*log);
  ASSERT_FALSE(m.steps.empty());
  EXPECT_EQ(m.steps[0].nodes.size(), 2u);  // conv + relu
  const CompiledKernel& k = m.kernels[static_cast<size_t>(m.steps[0].kernel)];
  EXPECT_FALSE(k.tail.empty());
  EXPECT_EQ(k.task, task);
  EXPECT_TRUE(k.tuned);
  EXPECT_TRUE(k.config == chosen) << k.config.ToString() << " vs " << chosen.ToString();
  EXPECT_EQ(m.NumTuned(), 1);
}

}  // namespace
}  // namespace tessel::driver
