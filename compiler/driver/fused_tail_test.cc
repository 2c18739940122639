// BuildFusedTail on hand-picked groups: the tail it builds (inputs, signature) and every reason
// a group is not expressible. Execution of fused tails is checked in compile_fusion_test.cc.
#include "compiler/driver/fused_tail.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/driver/test_graphs.h"
#include "compiler/graph/builder.h"

namespace tessel::driver {
namespace {

using graph::Builder;
using graph::ValueId;
using ::testing::HasSubstr;

runtime::NDArray Random(const std::vector<int64_t>& shape) {
  return testing::RandomArray(shape, graph::kFloat32, -1, 1, 1);
}

graph::Graph Finish(Builder& b) {
  absl::StatusOr<graph::Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : graph::Graph{};
}

int NodeNamed(const graph::Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no node " << name;
  return -1;
}

std::vector<int> Nodes(const graph::Graph& g, const std::vector<std::string>& names) {
  std::vector<int> nodes;
  for (const std::string& n : names) nodes.push_back(NodeNamed(g, n));
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::string Why(const graph::Graph& g, const std::string& master,
                const std::vector<std::string>& names, TailRules rules = {}) {
  absl::StatusOr<FusedTail> t = BuildFusedTail(g, NodeNamed(g, master), Nodes(g, names), rules);
  EXPECT_FALSE(t.ok());
  if (t.ok()) return "";
  EXPECT_TRUE(absl::IsFailedPrecondition(t.status())) << t.status();
  return std::string(t.status().message());
}

// x [1, 16, 8, 8] -> conv (16 channels) -> add bias [16, 1, 1] -> relu -> add x -> ...
struct ConvGraph {
  graph::Graph g;
  ConvGraph() {
    Builder b;
    ValueId x = b.Input("x", {{1, 16, 8, 8}});
    ValueId y = b.Op("conv2d", {x, b.Constant("w", Random({16, 16, 3, 3}))},
                     {{"pad", {1, 1, 1, 1}}}, "conv");
    ValueId bias = b.Constant("bias", Random({16, 1, 1}));
    ValueId t = b.Op("add", {y, bias}, {}, "bias_add");
    t = b.Op("relu", {t}, {}, "relu");
    t = b.Op("multiply", {t, bias}, {}, "rescale");  // the same constant again: one input
    t = b.Op("add", {t, x}, {}, "residual");
    ValueId r = b.Op("reshape", {t}, {{"newshape", {1, 16, 8, 8}}}, "reshape");
    ValueId pooled = b.Op("global_avg_pool2d", {t}, {}, "pool");
    ValueId spread = b.Op("add", {pooled, x}, {}, "spread");
    ValueId n = b.Op("conv2d", {x, b.Constant("w2", Random({16, 16, 1, 1}))}, {}, "conv_1x1");
    b.Output(r);
    b.Output(spread);
    b.Output(n);
    g = Finish(b);
  }
};

TEST(FusedTailTest, BuildsInputsAndSignature) {
  ConvGraph c;
  absl::StatusOr<FusedTail> t =
      BuildFusedTail(c.g, NodeNamed(c.g, "conv"),
                     Nodes(c.g, {"conv", "bias_add", "relu", "rescale", "residual"}), {});
  ASSERT_TRUE(t.ok()) << t.status();
  std::vector<std::string> inputs;
  for (ValueId v : t->inputs) inputs.push_back(c.g.value(v).name);
  EXPECT_EQ(inputs, (std::vector<std::string>{"bias", "x"}));
  ASSERT_EQ(t->tail.inputs.size(), 2u);
  EXPECT_EQ(t->signature,
            "add(v,i0);relu(t0);multiply(t1,i0);add(t2,i1) i0=float32[16, 1, 1] "
            "i1=float32[1, 16, 8, 8]");
  // A prefix is a tail of its own.
  absl::StatusOr<FusedTail> prefix =
      BuildFusedTail(c.g, NodeNamed(c.g, "conv"), Nodes(c.g, {"conv", "bias_add", "relu"}), {});
  ASSERT_TRUE(prefix.ok()) << prefix.status();
  EXPECT_EQ(prefix->signature, "add(v,i0);relu(t0) i0=float32[16, 1, 1]");
}

TEST(FusedTailTest, ChannelStridedInputsFollowTheRules) {
  ConvGraph c;
  const std::vector<std::string> group = {"conv", "bias_add", "relu", "rescale", "residual"};
  EXPECT_THAT(Why(c.g, "conv", group, {.channel_strided_inputs = false}),
              HasSubstr("'x' is channel-strided"));
  EXPECT_TRUE(BuildFusedTail(c.g, NodeNamed(c.g, "conv"), Nodes(c.g, group),
                             {.channel_strided_inputs = true})
                  .ok());
  EXPECT_TRUE(IsChannelStrided({1, 16, 8, 8}, {1, 16, 8, 8}));
  EXPECT_TRUE(IsChannelStrided({16, 1, 8}, {1, 16, 8, 8}));
  EXPECT_FALSE(IsChannelStrided({16, 1, 1}, {1, 16, 8, 8}));
  EXPECT_FALSE(IsChannelStrided({1, 1, 8, 8}, {1, 16, 8, 8}));
  EXPECT_FALSE(IsChannelStrided({8}, {1, 16, 8, 8}));
  EXPECT_FALSE(IsChannelStrided({4, 16}, {4, 16}));  // not 4-d
}

TEST(FusedTailTest, GroupsATailCannotExpress) {
  ConvGraph c;
  EXPECT_THAT(Why(c.g, "conv", {"conv", "bias_add", "relu", "rescale", "residual", "reshape"}),
              HasSubstr("node 'reshape' (reshape)"));
  EXPECT_THAT(
      Why(c.g, "pool", {"pool", "spread"}),
      HasSubstr("master 'pool' gives float32[1, 16, 1, 1], the group float32[1, 16, 8, 8]"));
  EXPECT_THAT(Why(c.g, "conv", {"conv"}), HasSubstr("no tail nodes"));
  EXPECT_THAT(Why(c.g, "conv", {"conv", "conv_1x1"}), HasSubstr("node 'conv_1x1' (conv2d)"));
}

TEST(FusedTailTest, MultiOutputMastersAndDeepTailsAreNotExpressible) {
  Builder b;
  ValueId x = b.Input("x", {{1, 8}});
  ValueId h = b.Input("h", {{1, 8}});
  ValueId cell = b.Input("c", {{1, 8}});
  std::vector<ValueId> out =
      b.Add("lstm_cell",
            {x, h, cell, b.Constant("w_ih", Random({32, 8})), b.Constant("w_hh", Random({32, 8})),
             b.Constant("b_ih", Random({32})), b.Constant("b_hh", Random({32}))},
            {}, "cell");
  ValueId r = b.Op("relu", {out[0]}, {}, "relu");
  // A chain where each node reads the previous one twice: the expression tree doubles per node.
  ValueId d = b.Op("dense", {x, b.Constant("w", Random({8, 8}))}, {}, "fc");
  std::vector<std::string> deep = {"fc"};
  for (int i = 0; i < 10; ++i) {
    d = b.Op("add", {d, d}, {}, "double" + std::to_string(i));
    deep.push_back("double" + std::to_string(i));
  }
  b.Output(r);
  b.Output(out[1]);
  b.Output(d);
  const graph::Graph g = Finish(b);
  EXPECT_THAT(Why(g, "cell", {"cell", "relu"}), HasSubstr("master 'cell' has 2 outputs"));
  EXPECT_THAT(Why(g, "fc", deep), HasSubstr("exceeds 512 operations"));
  deep.resize(6);  // 2^5 + ... operations: fine
  EXPECT_TRUE(BuildFusedTail(g, NodeNamed(g, "fc"), Nodes(g, deep), {}).ok());
}

}  // namespace
}  // namespace tessel::driver
