#include "compiler/graph/passes/fuse_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/builder.h"
#include "compiler/graph/passes/fold_batch_norm.h"
#include "compiler/graph/passes/test_util.h"

namespace tessel::graph::passes {
namespace {

using ::testing::HasSubstr;
using testing::RandomArray;

Graph Finish(Builder& b) {
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph{};
}

FusionPlan Fuse(const Graph& g, const FuseOptions& options = {}) {
  absl::StatusOr<FusionPlan> plan = FuseOps(g, options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  absl::Status valid = CheckFusionPlan(g, *plan);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << FusionPlanToText(g, *plan);
  return *std::move(plan);
}

std::string FuseText(const Graph& g, const FuseOptions& options = {}) {
  return FusionPlanToText(g, Fuse(g, options));
}

// The graph with its nodes in the plan's order, group after group: a valid graph (Builder checks
// every input is defined first) that computes the same.
void ExpectGroupOrderComputesTheSame(const Graph& g, const FusionPlan& plan, uint32_t seed) {
  Builder b;
  std::vector<ValueId> map(g.values.size(), kInvalid);
  for (ValueId id : g.inputs) map[static_cast<size_t>(id)] = b.Input(g.value(id).name, g.type(id));
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].kind == ValueKind::kConstant) {
      map[i] = b.Constant(g.values[i].name, g.values[i].data);
    }
  }
  for (const FusionGroup& group : plan.groups) {
    for (int n : group.nodes) {
      const Node& node = g.nodes[static_cast<size_t>(n)];
      std::vector<ValueId> inputs;
      for (ValueId id : node.inputs) inputs.push_back(map[static_cast<size_t>(id)]);
      std::vector<ValueId> outputs = b.Add(node.op, inputs, node.attrs, node.name);
      for (size_t o = 0; o < outputs.size(); ++o)
        map[static_cast<size_t>(node.outputs[o])] = outputs[o];
    }
  }
  for (ValueId id : g.outputs) b.Output(map[static_cast<size_t>(id)]);
  absl::StatusOr<Graph> reordered = b.Finish();
  ASSERT_TRUE(reordered.ok()) << reordered.status();
  testing::ExpectSameOutputs(g, *reordered, seed);
}

TEST(FuseOpsTest, ConvTakesItsElementWiseTail) {
  Builder b;
  ValueId x = b.Input("x", {{1, 3, 6, 6}});
  ValueId y = b.Op("conv2d", {x, b.Constant("w", RandomArray({4, 3, 3, 3}, 1))}, {}, "conv");
  y = b.Op("add", {y, b.Constant("b", RandomArray({4, 1, 1}, 2))}, {}, "bias");
  y = b.Op("relu", {y}, {}, "relu");
  b.Output(b.Op("clip", {y}, {{"min", 0.0}, {"max", 6.0}}, "relu6"));
  const Graph g = Finish(b);
  const FusionPlan plan = Fuse(g);
  EXPECT_EQ(FusionPlanToText(g, plan), "conv* bias relu relu6\n");
  ASSERT_EQ(plan.groups.size(), 1u);
  const FusionGroup& group = plan.groups[0];
  EXPECT_EQ(group.master, 0);
  EXPECT_EQ(group.pattern, OpPattern::kOutEWiseFusable);
  EXPECT_EQ(group.inputs, (std::vector<ValueId>{g.nodes[0].inputs[0], g.nodes[0].inputs[1],
                                                g.nodes[1].inputs[1]}));
  EXPECT_EQ(group.outputs, g.outputs);
  EXPECT_EQ(plan.group_of, (std::vector<int>{0, 0, 0, 0}));
}

// conv -> bn -> relu -> conv -> bn -> add(residual) -> relu, twice: one group per conv, the
// residual add and the final relu in the second conv's group. The block's output is read by the
// next block's conv and residual add, so it ends its group.
TEST(FuseOpsTest, ResNetBlocks) {
  const Graph g = testing::ResNetBlocks(4, 2, true, 1);
  const FusionPlan plan = Fuse(g);
  EXPECT_EQ(FusionPlanToText(g, plan),
            "conv1* bias1 bn1 relu1\n"
            "conv2* bn2 residual relu2\n"
            "conv1_1* bias1_1 bn1_1 relu1_1\n"
            "conv2_1* bn2_1 residual_1 relu2_1\n");
  auto value = [&](const std::string& name) {
    for (size_t i = 0; i < g.values.size(); ++i) {
      if (g.values[i].name == name) return static_cast<ValueId>(i);
    }
    return kInvalid;
  };
  // Group 1 reads relu1, its weight, bn2's statistics and the block input.
  EXPECT_EQ(
      plan.groups[1].inputs,
      (std::vector<ValueId>{value("relu1"), value("w2"), value("bn2.gamma"), value("bn2.beta"),
                            value("bn2.mean"), value("bn2.var"), value("x")}));
  EXPECT_EQ(plan.groups[1].outputs, std::vector<ValueId>{value("relu2")});
  ExpectGroupOrderComputesTheSame(g, plan, 2);

  absl::StatusOr<Graph> folded = FoldBatchNorm(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(FuseText(*folded),
            "conv1* bn1 relu1\n"
            "conv2* bn2 residual relu2\n"
            "conv1_1* bn1_1 relu1_1\n"
            "conv2_1* bn2_1 residual_1 relu2_1\n");
}

// A value read by two element-wise nodes that meet again: all fuse where they meet.
TEST(FuseOpsTest, Diamond) {
  Builder b;
  ValueId x = b.Input("x", {{1, 3, 6, 6}});
  ValueId c = b.Op("conv2d", {x, b.Constant("w", RandomArray({4, 3, 1, 1}, 1))}, {}, "conv");
  ValueId r = b.Op("relu", {c}, {}, "relu");
  ValueId s = b.Op("sigmoid", {r}, {}, "sigmoid");
  ValueId t = b.Op("tanh", {r}, {}, "tanh");
  b.Output(b.Op("add", {s, t}, {}, "add"));
  const Graph g = Finish(b);
  EXPECT_EQ(FuseText(g), "conv* relu sigmoid tanh add\n");
}

// A value read by a conv and by the add after it (a residual around a conv): the conv takes the
// add, the value's producer keeps to itself (a conv is no element-wise path).
TEST(FuseOpsTest, ValueReadByAConvAndItsTail) {
  Builder b;
  ValueId x = b.Input("x", {{1, 4, 6, 6}});
  ValueId r = b.Op("relu", {x}, {}, "relu");
  ValueId c = b.Op("conv2d", {r, b.Constant("w", RandomArray({4, 4, 3, 3}, 1))},
                   {{"pad", {1, 1, 1, 1}}}, "conv");
  b.Output(b.Op("add", {c, r}, {}, "add"));
  const Graph g = Finish(b);
  const FusionPlan plan = Fuse(g);
  EXPECT_EQ(FusionPlanToText(g, plan), "relu\nconv* add\n");
  EXPECT_EQ(plan.groups[0].outputs, std::vector<ValueId>{r});
  EXPECT_EQ(plan.groups[1].inputs, (std::vector<ValueId>{r, g.nodes[1].inputs[1]}));
}

// Two readers that never meet before the outputs: the value ends its group.
TEST(FuseOpsTest, ValueWithTwoReadersThatDoNotMeet) {
  Builder b;
  ValueId x = b.Input("x", {{2, 8}});
  ValueId r = b.Op("relu", {x}, {}, "relu");
  b.Output(b.Op("sigmoid", {r}, {}, "sigmoid"));
  b.Output(b.Op("tanh", {r}, {}, "tanh"));
  const Graph g = Finish(b);
  EXPECT_EQ(FuseText(g), "relu\nsigmoid\ntanh\n");
}

TEST(FuseOpsTest, OpaqueNodesAreBarriers) {
  Builder b;
  ValueId x = b.Input("x", {{2, 8}});
  ValueId y = b.Op("dense", {x, b.Constant("w", RandomArray({8, 8}, 1))}, {}, "dense");
  y = b.Op("relu", {y}, {}, "relu");
  y = b.Op("sigmoid", {y}, {}, "sigmoid");
  y = b.Op("softmax", {y}, {}, "softmax");
  y = b.Op("tanh", {y}, {}, "tanh");
  y = b.Op("log_softmax", {y}, {}, "log_softmax");
  b.Output(y);
  const Graph g = Finish(b);
  const FusionPlan plan = Fuse(g);
  EXPECT_EQ(FusionPlanToText(g, plan), "dense* relu sigmoid\nsoftmax*\ntanh\nlog_softmax*\n");
  EXPECT_EQ(plan.groups[1].pattern, OpPattern::kOpaque);
  EXPECT_EQ(plan.groups[2].master, -1);
}

// Injective nodes fuse with each other and take element-wise readers; element-wise nodes fuse
// into an injective reader; a conv takes no injective reader; an injective node fuses into no
// conv.
TEST(FuseOpsTest, InjectiveChains) {
  Builder b;
  ValueId x = b.Input("x", {{1, 2, 4, 4}});
  ValueId y = b.Op("sigmoid", {x}, {}, "sigmoid");
  y = b.Op("pad", {y}, {{"pad_before", {0, 0, 1, 1}}, {"pad_after", {0, 0, 1, 1}}}, "pad");
  y = b.Op("conv2d", {y, b.Constant("w", RandomArray({4, 2, 3, 3}, 1))}, {}, "conv");
  y = b.Op("reshape", {y}, {{"newshape", {1, 4, 16}}}, "reshape");
  y = b.Op("transpose", {y}, {{"axes", {0, 2, 1}}}, "transpose");
  y = b.Op("relu", {y}, {}, "relu");
  b.Output(y);
  const Graph g = Finish(b);
  const FusionPlan plan = Fuse(g);
  EXPECT_EQ(FusionPlanToText(g, plan), "sigmoid pad\nconv*\nreshape transpose relu\n");
  EXPECT_EQ(plan.groups[2].pattern, OpPattern::kInjective);
  ExpectGroupOrderComputesTheSame(g, plan, 3);
}

// Pooling is complex-out-fusable; flatten (injective) stands between it and the dense.
TEST(FuseOpsTest, ClassifierHead) {
  Builder b;
  ValueId x = b.Input("x", {{1, 8, 4, 4}});
  ValueId y = b.Op("global_avg_pool2d", {x}, {}, "pool");
  y = b.Op("flatten", {y}, {}, "flatten");
  y = b.Op("dense",
           {y, b.Constant("w", RandomArray({10, 8}, 1)), b.Constant("b", RandomArray({10}, 2))}, {},
           "fc");
  b.Output(b.Op("relu", {y}, {}, "relu"));
  const Graph g = Finish(b);
  EXPECT_EQ(FuseText(g), "pool*\nflatten\nfc* relu\n");
}

// A node whose output is a graph output takes earlier nodes but fuses into nothing.
TEST(FuseOpsTest, GraphOutputsEndGroups) {
  Builder b;
  ValueId x = b.Input("x", {{1, 3, 6, 6}});
  ValueId c = b.Op("conv2d", {x, b.Constant("w", RandomArray({4, 3, 1, 1}, 1))}, {}, "conv");
  ValueId r = b.Op("relu", {c}, {}, "relu");
  b.Output(r);
  b.Output(b.Op("sigmoid", {r}, {}, "sigmoid"));
  b.Op("tanh", {r}, {}, "dead");
  const Graph g = Finish(b);
  const FusionPlan plan = Fuse(g);
  EXPECT_EQ(FusionPlanToText(g, plan), "conv* relu\nsigmoid\ndead\n");
  EXPECT_EQ(plan.groups[0].outputs, std::vector<ValueId>{r});
  EXPECT_EQ(plan.groups[2].outputs, std::vector<ValueId>{g.nodes[3].outputs[0]});
}

TEST(FuseOpsTest, GroupSizeCap) {
  Builder b;
  ValueId y = b.Input("x", {{4}});
  for (int i = 0; i < 10; ++i) y = b.Op("relu", {y}, {}, absl::StrCat("r", i));
  b.Output(y);
  const Graph g = Finish(b);
  EXPECT_EQ(FuseText(g), "r0 r1 r2 r3 r4 r5 r6 r7 r8 r9\n");
  EXPECT_EQ(FuseText(g, {.max_group_size = 4}), "r0 r1 r2 r3\nr4 r5 r6 r7\nr8 r9\n");
  EXPECT_EQ(FuseText(g, {.max_group_size = 1}), "r0\nr1\nr2\nr3\nr4\nr5\nr6\nr7\nr8\nr9\n");

  // The cap counts whole groups: the second conv group (4 nodes) cannot take a 2-node neighbour
  // past 5.
  const Graph block = testing::ResNetBlocks(4, 1, true, 1);
  EXPECT_EQ(FuseText(block, {.max_group_size = 3}),
            "conv1* bias1 bn1\nrelu1\nconv2* bn2 residual\nrelu2\n");
}

TEST(FuseOpsTest, FusionOff) {
  const Graph g = testing::ResNetBlocks(4, 1, false, 1);
  const FusionPlan plan = Fuse(g, {.enabled = false});
  EXPECT_EQ(FusionPlanToText(g, plan), "conv1*\nbn1\nrelu1\nconv2*\nbn2\nresidual\nrelu2\n");
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    EXPECT_EQ(plan.groups[k].nodes, std::vector<int>{static_cast<int>(k)});
    EXPECT_EQ(plan.groups[k].outputs, g.nodes[k].outputs);
  }
}

TEST(FuseOpsTest, BadOptionIsAnError) {
  const Graph g = testing::ResNetBlocks(4, 1, false, 1);
  absl::StatusOr<FusionPlan> plan = FuseOps(g, {.max_group_size = 0});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("FuseOptions.max_group_size must be at least 1, got 0"));
}

TEST(FuseOpsTest, CheckFusionPlanCatchesBrokenPlans) {
  const Graph g = testing::ResNetBlocks(4, 1, false, 1);
  const FusionPlan good = Fuse(g);
  struct Case {
    std::function<void(FusionPlan&)> breaks;
    std::string message;
  };
  std::vector<Case> cases = {
      {[](FusionPlan& p) { p.groups[0].nodes.pop_back(); }, "node 'relu1' is in 0 fusion groups"},
      {[](FusionPlan& p) { std::swap(p.groups[0], p.groups[1]); }, "fusion group 0: holds node"},
      {[](FusionPlan& p) {
         p.groups[1].nodes.insert(p.groups[1].nodes.begin(), p.groups[0].nodes.begin(),
                                  p.groups[0].nodes.end());
         p.groups.erase(p.groups.begin());
         for (int& k : p.group_of) k = 0;
       },
       "fusion group 0: has 2 masters"},
      {[](FusionPlan& p) { p.groups[1].outputs.clear(); }, "fusion group 1: has the wrong outputs"},
      {[](FusionPlan& p) { p.groups[0].master = -1; },
       "fusion group 0: its master is node -1, its complex node 0"},
      {[](FusionPlan& p) { p.group_of.pop_back(); }, "places 6 nodes, the graph has 7"},
  };
  for (const Case& c : cases) {
    FusionPlan p = good;
    c.breaks(p);
    absl::Status s = CheckFusionPlan(g, p);
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.message));
  }
}

// Random DAGs: every plan is valid, within the cap, and its group order computes the same.
TEST(FuseOpsTest, RandomDagsGiveValidPlans) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    SCOPED_TRACE(seed);
    const Graph g = testing::RandomDag(seed, 20 + int(seed % 50));
    for (int cap : {256, 3, 1}) {
      const FusionPlan plan = Fuse(g, {.max_group_size = cap});
      for (const FusionGroup& group : plan.groups) EXPECT_LE(group.nodes.size(), size_t(cap));
      if (cap == 256 && seed < 40) ExpectGroupOrderComputesTheSame(g, plan, seed);
    }
    const FusionPlan off = Fuse(g, {.enabled = false});
    EXPECT_EQ(off.groups.size(), g.nodes.size());
  }
}

}  // namespace
}  // namespace tessel::graph::passes
