// Compile with the layout pass (graph/passes/alter_layout.h): blocked convolutions read and
// write their blocked values as they are, residuals fuse into the blocked kernels' tails, a
// tuned config's blocks become the graph's, untuned kernels read the block their producer
// writes, and every result equals libtorch's.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "baselines/torch/graph_reference.h"
#include "compiler/driver/compile_check.h"
#include "compiler/driver/compile_model.h"
#include "compiler/driver/kernel_config.h"
#include "compiler/driver/test_graphs.h"
#include "compiler/graph/builder.h"
#include "compiler/graph/node_layout.h"
#include "compiler/ops/op_runner.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "search/records/apply_history_best.h"
#include "search/records/log.h"
#include "search/task/task.h"

namespace tessel::driver {
namespace {

using graph::Builder;
using graph::ValueId;
using runtime::KernelArg;
using testing::ExpectMatchesReference;
using testing::RandomArray;
using testing::TestGraph;

runtime::NDArray Random(const std::vector<int64_t>& shape, uint32_t seed) {
  return RandomArray(shape, graph::kFloat32, -0.3, 0.3, seed);
}

// Two residual blocks of 3x3 convolutions (16 channels: the NCHWc template) with biases.
TestGraph ResidualBlocks() {
  Builder b;
  ValueId x = b.Input("x", {{1, 16, 8, 8}});
  uint32_t seed = 1;
  for (const std::string p : {"a", "b"}) {
    ValueId y = b.Op("conv2d", {x, b.Constant(p + ".w1", Random({16, 16, 3, 3}, seed++))},
                     {{"pad", {1, 1, 1, 1}}}, p + ".conv1");
    y = b.Op("add", {y, b.Constant(p + ".b1", Random({16, 1, 1}, seed++))}, {}, p + ".bias1");
    y = b.Op("relu", {y}, {}, p + ".relu1");
    y = b.Op("conv2d", {y, b.Constant(p + ".w2", Random({16, 16, 3, 3}, seed++))},
             {{"pad", {1, 1, 1, 1}}}, p + ".conv2");
    y = b.Op("add", {y, b.Constant(p + ".b2", Random({16, 1, 1}, seed++))}, {}, p + ".bias2");
    y = b.Op("add", {y, x}, {}, p + ".residual");
    x = b.Op("relu", {y}, {}, p + ".relu2");
  }
  b.Output(x);
  absl::StatusOr<graph::Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return {*std::move(g), {RandomArray({1, 16, 8, 8}, graph::kFloat32, -1, 1, 99)}};
}

std::string StepText(const CompiledModel& m, const CompiledStep& step) {
  std::string text;
  for (int n : step.nodes) {
    if (!text.empty()) text += "+";
    text += m.graph.nodes[static_cast<size_t>(n)].op;
  }
  return text;
}

int Count(const std::vector<KernelArg>& args, KernelArg::Source source) {
  int n = 0;
  for (const KernelArg& a : args) n += a.source == source;
  return n;
}

TEST(CompileLayoutTest, ResidualBlocksStayBlockedAndFuseTheirResiduals) {
  const TestGraph t = ResidualBlocks();
  const CompiledModel m = ExpectMatchesReference(t);
  std::vector<std::string> steps;
  for (const CompiledStep& step : m.steps) steps.push_back(StepText(m, step));
  EXPECT_EQ(steps, (std::vector<std::string>{"layout_transform", "conv2d+add+relu",
                                             "conv2d+add+add+relu", "conv2d+add+relu",
                                             "conv2d+add+add+relu", "layout_transform"}));
  for (const CompiledStep& step : m.steps) {
    // Nothing packed or unpacked by the executor: the kernels read and write blocked values.
    EXPECT_EQ(Count(step.args, KernelArg::Source::kPackChannels), 0) << step.nodes[0];
    EXPECT_EQ(step.result_mode, runtime::ResultMode::kDirect) << step.nodes[0];
  }
  // Without the pass the executor packs every convolution's input.
  const CompiledModel off = ExpectMatchesReference(t, {.alter_layout = false});
  int packed = 0;
  for (const CompiledStep& step : off.steps) {
    packed += Count(step.args, KernelArg::Source::kPackChannels);
  }
  EXPECT_EQ(packed, 4);
}

// A log whose one record is the graph's first node (a convolution) as a conv2d_nchwc.x86 task:
// the template's fallback with `knobs` set.
absl::StatusOr<search::ApplyHistoryBest> LogTuningFirstConv(const TestGraph& t,
                                                            const nlohmann::json& knobs,
                                                            const std::string& file) {
  TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, graph::OpArgsOf(t.graph, t.graph.nodes[0]));
  TESSEL_ASSIGN_OR_RETURN(target::Target target,
                          target::ResolveCompileTarget(target::Target::Llvm()));
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(target));
  search::Task task{.template_name = "conv2d_nchwc.x86", .args = args, .target = target};
  TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, search::Space(task, facts));
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* tmpl, ops::FindTemplate(task.template_name));
  TESSEL_ASSIGN_OR_RETURN(search::Config chosen,
                          ops::WithKnobs(space, tmpl->fallback(space, task.args, facts), knobs));
  return testing::LogWithConfig(task, chosen, file);
}

// The blocks of the first convolution come from its tuned config.
TEST(CompileLayoutTest, ATunedConfigsBlocksBecomeTheGraphs) {
  const TestGraph t = ResidualBlocks();
  absl::StatusOr<search::ApplyHistoryBest> log =
      LogTuningFirstConv(t, {{"tile_ic", {4, 4}}, {"tile_oc", {2, 8}}}, "layout.jsonl");
  ASSERT_TRUE(log.ok()) << log.status();
  const CompiledModel m = ExpectMatchesReference(t, {}, &*log);
  bool found = false;
  for (const graph::Node& n : m.graph.nodes) {
    if (n.name != "a.conv1") continue;
    found = true;
    absl::StatusOr<graph::NodeLayout> layout = graph::NodeLayoutOf(n.attrs);
    ASSERT_TRUE(layout.ok());
    EXPECT_EQ(layout->in_block, 4);
    EXPECT_EQ(layout->out_block, 8);
  }
  EXPECT_TRUE(found);
  // Every convolution has that task: both its kernels (with and without the residual) are tuned.
  EXPECT_EQ(m.NumTuned(), 2);
}

int TransformSteps(const CompiledModel& m) {
  int n = 0;
  for (const CompiledStep& step : m.steps) n += StepText(m, step) == "layout_transform";
  return n;
}

// MobileNet's pattern: an untuned depthwise and pointwise convolution read their data in the
// block their producer writes (here a tuned first convolution's 4 channels, which no fallback
// picks), so only the graph's input and output are transformed; choosing every kernel's blocks
// on its own puts transforms between them.
TEST(CompileLayoutTest, UntunedKernelsReadTheBlockTheirProducerWrites) {
  Builder b;
  ValueId x = b.Input("x", {{1, 16, 12, 12}});
  ValueId y = b.Op("conv2d", {x, b.Constant("c.w", Random({32, 16, 3, 3}, 1))},
                   {{"pad", {1, 1, 1, 1}}}, "conv");
  y = b.Op("relu", {y}, {}, "conv.relu");
  y = b.Op("conv2d", {y, b.Constant("dw.w", Random({32, 1, 3, 3}, 2))},
           {{"pad", {1, 1, 1, 1}}, {"groups", 32}, {"stride", {2, 2}}}, "dw");
  y = b.Op("relu", {b.Op("add", {y, b.Constant("dw.b", Random({32, 1, 1}, 3))})}, {}, "dw.relu");
  y = b.Op("conv2d", {y, b.Constant("pw.w", Random({48, 32, 1, 1}, 4))}, {}, "pw");
  b.Output(b.Op("relu", {y}, {}, "pw.relu"));
  absl::StatusOr<graph::Graph> g = b.Finish();
  ASSERT_TRUE(g.ok()) << g.status();
  const TestGraph t{*std::move(g), {RandomArray({1, 16, 12, 12}, graph::kFloat32, -1, 1, 6)}};

  absl::StatusOr<search::ApplyHistoryBest> log =
      LogTuningFirstConv(t, {{"tile_oc", {8, 4}}}, "follow.jsonl");
  ASSERT_TRUE(log.ok()) << log.status();

  const CompiledModel m = ExpectMatchesReference(t, {}, &*log);
  EXPECT_EQ(TransformSteps(m), 2);  // the input to the tuned block, the output back to NCHW
  for (const graph::Node& n : m.graph.nodes) {
    if (n.name != "dw" && n.name != "pw") continue;
    absl::StatusOr<graph::NodeLayout> layout = graph::NodeLayoutOf(n.attrs);
    ASSERT_TRUE(layout.ok());
    EXPECT_EQ(layout->in_block, 4) << n.name;
  }
  const CompiledModel own = ExpectMatchesReference(t, {.follow_data_blocks = false}, &*log);
  EXPECT_GE(TransformSteps(own), 3);
}

// A tuned kernel whose data arrives in another block than its best config reads takes the log's
// fastest config reading that block when it is slower by less than a transform of the data
// (kTransformBytesPerSecond), and keeps the best otherwise.
TEST(CompileLayoutTest, TunedKernelsReadTheirDataBlockWhenThatCostsLittle) {
  const nlohmann::json args = {{"n", 1},           {"ic", 32},
                               {"h", 8},           {"w", 8},
                               {"oc", 32},         {"kh", 3},
                               {"kw", 3},          {"pad", {1, 1, 1, 1}},
                               {"stride", {1, 1}}, {"dilation", {1, 1}},
                               {"groups", 1}};
  absl::StatusOr<target::Target> target = target::ResolveCompileTarget(target::Target::Llvm());
  ASSERT_TRUE(target.ok()) << target.status();
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(*target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  const search::Task task{.template_name = "conv2d_nchwc.x86", .args = args, .target = *target};
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, *facts);
  ASSERT_TRUE(space.ok()) << space.status();
  const ops::Template* t = *ops::FindTemplate(task.template_name);
  const search::Config fallback = t->fallback(*space, args, *facts);
  absl::StatusOr<search::Config> best = ops::WithKnobs(*space, fallback, {{"tile_ic", {2, 16}}});
  absl::StatusOr<search::Config> other = ops::WithKnobs(*space, fallback, {{"tile_ic", {4, 8}}});
  ASSERT_TRUE(best.ok() && other.ok()) << best.status() << other.status();
  ASSERT_EQ(t->channel_blocks(*best, args, *facts).in, 16);
  ASSERT_EQ(t->channel_blocks(*other, args, *facts).in, 8);
  // A transform of the 8 KiB data: 2 * 8192 / kTransformBytesPerSecond seconds.
  const double transform = 2 * 32 * 8 * 8 * 4 / kTransformBytesPerSecond;
  for (const auto& [extra, expect_other] : {std::pair{0.5, true}, std::pair{2.0, false}}) {
    auto record = [&](const search::Config& c, double seconds) {
      search::Record r;
      r.task = task;
      r.config = c.ToJson();
      r.config_index = c.index();
      r.result.costs = {seconds};
      return r;
    };
    const search::ApplyHistoryBest log(
        {record(*best, 1e-4), record(*other, 1e-4 + extra * transform)});
    absl::StatusOr<KernelConfig> k = SelectKernelConfig(*t, task, *facts, &log, "conv");
    ASSERT_TRUE(k.ok()) << k.status();
    ASSERT_TRUE(k->tuned);
    EXPECT_TRUE(ConfigForDataBlock(*t, *k, args, *facts, 16) == *best);
    EXPECT_TRUE(ConfigForDataBlock(*t, *k, args, *facts, 8) == (expect_other ? *other : *best))
        << "slower by " << extra << " transforms";
  }
}

// Depthwise and pointwise convolutions (MobileNet's pattern), a max pool between blocked
// convolutions, and every operator of the test graphs of the other tests.
TEST(CompileLayoutTest, OtherGraphsMatchTheReference) {
  Builder b;
  ValueId x = b.Input("x", {{1, 32, 10, 10}});
  ValueId y = b.Op("conv2d", {x, b.Constant("dw.w", Random({32, 1, 3, 3}, 1))},
                   {{"pad", {1, 1, 1, 1}}, {"groups", 32}}, "dw");
  y = b.Op("relu", {b.Op("add", {y, b.Constant("dwb", Random({32, 1, 1}, 2))})});
  y = b.Op("conv2d", {y, b.Constant("pw.w", Random({64, 32, 1, 1}, 3))}, {}, "pw");
  y = b.Op("max_pool2d", {y}, {{"kh", 2}, {"kw", 2}, {"stride", {2, 2}}}, "pool");
  y = b.Op("conv2d", {y, b.Constant("pw2.w", Random({32, 64, 1, 1}, 4))}, {}, "pw2");
  b.Output(b.Op("sigmoid", {y}));
  absl::StatusOr<graph::Graph> g = b.Finish();
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectMatchesReference(
      {*std::move(g), {RandomArray({1, 32, 10, 10}, graph::kFloat32, -1, 1, 5)}});
  for (auto make : {testing::ConvolutionGraph, testing::ElementwiseAndShapeGraph}) {
    absl::StatusOr<TestGraph> t = make();
    ASSERT_TRUE(t.ok()) << t.status();
    ExpectMatchesReference(*t);
  }
}

}  // namespace
}  // namespace tessel::driver
