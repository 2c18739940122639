#include "compiler/graph/passes/alter_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/builder.h"
#include "compiler/graph/passes/fold_batch_norm.h"
#include "compiler/graph/passes/test_util.h"

namespace tessel::graph::passes {
namespace {

using testing::CountOp;
using testing::RandomArray;

Graph Finish(Builder& b) {
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph{};
}

Graph Alter(const Graph& g, const LayoutChooser& choose) {
  absl::StatusOr<Graph> after = AlterLayout(g, choose);
  EXPECT_TRUE(after.ok()) << after.status();
  return after.ok() ? *std::move(after) : Graph{};
}

// Every convolution in the same blocks.
LayoutChooser Every(int64_t in, int64_t out) {
  return [=](const Graph&, const Node&, int64_t) { return NodeLayout{in, out}; };
}

LayoutChooser None() {
  return [](const Graph&, const Node&, int64_t) { return std::nullopt; };
}

std::vector<std::string> OutputNames(const Graph& g) {
  std::vector<std::string> names;
  for (ValueId id : g.outputs) names.push_back(g.value(id).name);
  return names;
}

// After batch-norm folding, a ResNet block is blocked from its input to its output: the bias
// constants are rewritten blocked, the residual is read blocked, one transform in, one out.
TEST(AlterLayoutTest, ResNetBlockStaysBlockedBetweenItsBoundaries) {
  absl::StatusOr<Graph> before = FoldBatchNorm(testing::ResNetBlocks(8, 1, true, 1));
  ASSERT_TRUE(before.ok()) << before.status();
  const Graph after = Alter(*before, Every(4, 4));
  EXPECT_EQ(ToText(after),
            "input %x : float32[1, 8, 8, 8]\n"
            "const %bn1.weight : float32[8, 8, 3, 3]\n"
            "const %bn1.bias_nchw4c : float32[2, 1, 1, 4]\n"
            "const %bn2.weight : float32[8, 8, 3, 3]\n"
            "const %bn2.bias_nchw4c : float32[2, 1, 1, 4]\n"
            "%x_nchw4c = layout_transform(%x) {\"dst\":\"NCHW4c\",\"src\":\"NCHW\"} : "
            "float32[1, 2, 8, 8, 4]\n"
            "%conv1 = conv2d(%x_nchw4c, %bn1.weight) "
            "{\"data_layout\":\"NCHW4c\",\"out_layout\":\"NCHW4c\",\"pad\":[1,1,1,1]} : "
            "float32[1, 2, 8, 8, 4]\n"
            "%bn1 = add(%conv1, %bn1.bias_nchw4c) : float32[1, 2, 8, 8, 4]\n"
            "%relu1 = relu(%bn1) : float32[1, 2, 8, 8, 4]\n"
            "%conv2 = conv2d(%relu1, %bn2.weight) "
            "{\"data_layout\":\"NCHW4c\",\"out_layout\":\"NCHW4c\",\"pad\":[1,1,1,1]} : "
            "float32[1, 2, 8, 8, 4]\n"
            "%bn2 = add(%conv2, %bn2.bias_nchw4c) : float32[1, 2, 8, 8, 4]\n"
            "%residual = add(%bn2, %x_nchw4c) : float32[1, 2, 8, 8, 4]\n"
            "%relu2_nchw4c = relu(%residual) : float32[1, 2, 8, 8, 4]\n"
            "%relu2 = layout_transform(%relu2_nchw4c) {\"dst\":\"NCHW\",\"src\":\"NCHW4c\"} : "
            "float32[1, 8, 8, 8]\n"
            "output %relu2\n");
  testing::ExpectSameOutputs(*before, after, 2);
}

// Two blocks, each convolution in blocks of its own: a transform only where the blocks change,
// each value converted once however many read it.
TEST(AlterLayoutTest, DifferentBlocksConvertOncePerValueAndBlock) {
  absl::StatusOr<Graph> before = FoldBatchNorm(testing::ResNetBlocks(16, 2, false, 3));
  ASSERT_TRUE(before.ok()) << before.status();
  const LayoutChooser choose = [](const Graph&, const Node& n,
                                  int64_t) -> std::optional<NodeLayout> {
    if (n.name == "conv1") return NodeLayout{16, 8};
    if (n.name == "conv2") return NodeLayout{8, 4};
    if (n.name == "conv1_1") return NodeLayout{4, 16};
    return NodeLayout{0, 16};  // conv2_1: reads NCHW
  };
  const Graph after = Alter(*before, choose);
  // x -> 16 (conv1) and x -> 4 (the first residual); relu1 8 (conv2 reads it as stored);
  // relu2 4 (conv1_1 reads it), 4 -> 0 for conv2_1 and 4 -> 16 for the second residual;
  // the output 16 -> 0.
  EXPECT_EQ(CountLayoutTransforms(after), 5);
  EXPECT_EQ(OutputNames(after), OutputNames(*before));
  testing::ExpectSameOutputs(*before, after, 4);
}

// A node that is not layout-free (pooling) reads NCHW: the transforms sit around it.
TEST(AlterLayoutTest, PoolingIsABoundary) {
  Builder b;
  ValueId x = b.Input("x", {{1, 8, 8, 8}});
  ValueId y = b.Op("conv2d", {x, b.Constant("w1", RandomArray({16, 8, 1, 1}, 1))}, {}, "conv1");
  y = b.Op("relu", {y}, {}, "relu1");
  y = b.Op("max_pool2d", {y}, {{"kh", 2}, {"kw", 2}, {"stride", {2, 2}}}, "pool");
  y = b.Op("conv2d", {y, b.Constant("w2", RandomArray({16, 16, 1, 1}, 2))}, {}, "conv2");
  b.Output(y);
  const Graph before = Finish(b);
  const Graph after = Alter(before, Every(8, 16));
  EXPECT_EQ(
      testing::Ops(after),
      (std::vector<std::string>{"layout_transform", "conv2d", "relu", "layout_transform",
                                "max_pool2d", "layout_transform", "conv2d", "layout_transform"}));
  EXPECT_EQ(OutputNames(after), (std::vector<std::string>{"conv2"}));
  testing::ExpectSameOutputs(before, after, 5);
}

// The chooser is told the block each convolution's data is held in when it is visited (NCHW for
// the graph's input and after a pooling), so a chooser that follows it leaves transforms only
// where NCHW meets a block.
TEST(AlterLayoutTest, TheChooserIsToldTheBlockTheDataIsHeldIn) {
  Builder b;
  ValueId x = b.Input("x", {{1, 8, 8, 8}});
  ValueId y = b.Op("conv2d", {x, b.Constant("w1", RandomArray({16, 8, 1, 1}, 1))}, {}, "conv1");
  y = b.Op("relu", {y}, {}, "relu1");
  y = b.Op("conv2d", {y, b.Constant("w2", RandomArray({16, 16, 1, 1}, 2))}, {}, "conv2");
  y = b.Op("max_pool2d", {y}, {{"kh", 2}, {"kw", 2}, {"stride", {2, 2}}}, "pool");
  y = b.Op("conv2d", {y, b.Constant("w3", RandomArray({16, 16, 1, 1}, 3))}, {}, "conv3");
  b.Output(y);
  const Graph before = Finish(b);
  std::vector<int64_t> told;
  const LayoutChooser follow = [&told](const Graph&, const Node& n, int64_t data_block) {
    told.push_back(data_block);
    if (n.name == "conv1") return NodeLayout{8, 4};
    return NodeLayout{data_block > 0 ? data_block : 2, 4};
  };
  const Graph after = Alter(before, follow);
  EXPECT_EQ(told, (std::vector<int64_t>{0, 4, 0}));
  EXPECT_EQ(
      testing::Ops(after),
      (std::vector<std::string>{"layout_transform", "conv2d", "relu", "conv2d", "layout_transform",
                                "max_pool2d", "layout_transform", "conv2d", "layout_transform"}));
  testing::ExpectSameOutputs(before, after, 6);
}

// Per-channel constants on either side, [1, c, 1, 1] too, and a per-column one; single elements
// stay as they are; a per-channel input that is not a constant is reshaped by a node; an input
// of rank 3 varying along channels and space makes the node read NCHW.
TEST(AlterLayoutTest, BroadcastInputsFollowTheBlockOrStopIt) {
  Builder b;
  ValueId x = b.Input("x", {{2, 8, 4, 4}});
  ValueId gate = b.Input("gate", {{8, 1, 1}});
  ValueId plane = b.Input("plane", {{8, 4, 4}});
  ValueId y = b.Op("conv2d", {x, b.Constant("w", RandomArray({8, 8, 3, 3}, 1))},
                   {{"pad", {1, 1, 1, 1}}}, "conv");
  y = b.Op("multiply", {b.Constant("gamma", RandomArray({1, 8, 1, 1}, 2)), y}, {}, "scale");
  y = b.Op("add", {y, b.Constant("one", RandomArray({1}, 3))}, {}, "plus_one");
  y = b.Op("add", {y, b.Constant("row", RandomArray({4}, 4))}, {}, "per_column");
  y = b.Op("multiply", {y, gate}, {}, "gated");
  ValueId z = b.Op("add", {y, plane}, {}, "per_plane");
  b.Output(y);
  b.Output(z);
  const Graph before = Finish(b);
  const Graph after = Alter(before, Every(0, 4));
  EXPECT_EQ(testing::Ops(after),
            (std::vector<std::string>{"conv2d", "multiply", "add", "add", "reshape", "multiply",
                                      "layout_transform", "add"}));
  auto input_shape = [&](int node, int input) {
    return after.type(after.nodes[static_cast<size_t>(node)].inputs[static_cast<size_t>(input)])
        .shape;
  };
  EXPECT_EQ(input_shape(1, 0), (std::vector<int64_t>{1, 2, 1, 1, 4}));
  EXPECT_EQ(input_shape(2, 1), (std::vector<int64_t>{1}));
  EXPECT_EQ(input_shape(3, 1), (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(input_shape(5, 1), (std::vector<int64_t>{2, 1, 1, 4}));
  EXPECT_EQ(OutputNames(after), OutputNames(before));
  testing::ExpectSameOutputs(before, after, 6);
}

// layout_transform nodes already in the graph: adjacent ones compose, and cancel to nothing.
TEST(AlterLayoutTest, AdjacentTransformsCancel) {
  Builder b;
  ValueId x = b.Input("x", {{1, 16, 3, 3}});
  ValueId t = b.Op("layout_transform", {x}, {{"src", "NCHW"}, {"dst", "NCHW8c"}});
  t = b.Op("layout_transform", {t}, {{"src", "NCHW8c"}, {"dst", "NCHW4c"}});
  t = b.Op("layout_transform", {t}, {{"src", "NCHW4c"}, {"dst", "NCHW"}});
  b.Output(b.Op("relu", {t}, {}, "relu"));
  // Blocked on purpose: its consumer reads it as the 5-d tensor it is.
  ValueId u = b.Op("layout_transform", {x}, {{"src", "NCHW"}, {"dst", "NCHW4c"}}, "to4");
  b.Output(b.Op("sigmoid", {u}, {}, "sigmoid"));
  const Graph before = Finish(b);
  const Graph after = Alter(before, None());
  EXPECT_EQ(testing::Ops(after), (std::vector<std::string>{"relu", "layout_transform", "sigmoid"}));
  testing::ExpectSameOutputs(before, after, 7);

  // A convolution's blocked output converted back by the graph itself, then blocked again for
  // the next convolution: nothing in between.
  Builder c;
  ValueId in = c.Input("x", {{1, 8, 4, 4}});
  ValueId y = c.Op("conv2d", {in, c.Constant("w1", RandomArray({8, 8, 1, 1}, 1))}, {}, "conv1");
  y = c.Op("layout_transform", {y}, {{"src", "NCHW"}, {"dst", "NCHW4c"}});
  y = c.Op("layout_transform", {y}, {{"src", "NCHW4c"}, {"dst", "NCHW"}});
  y = c.Op("conv2d", {y, c.Constant("w2", RandomArray({8, 8, 1, 1}, 2))}, {}, "conv2");
  c.Output(y);
  const Graph convs = Finish(c);
  const Graph altered = Alter(convs, Every(4, 4));
  EXPECT_EQ(CountLayoutTransforms(altered), 2);  // the input and the output
  EXPECT_EQ(CountOp(altered, "conv2d"), 2);
  testing::ExpectSameOutputs(convs, altered, 8);
}

TEST(AlterLayoutTest, NoChoiceLeavesTheGraphAsItIs) {
  const Graph before = testing::ResNetBlocks(8, 1, true, 1);
  const Graph after = Alter(before, None());
  EXPECT_EQ(ToText(after), ToText(before));
}

TEST(AlterLayoutTest, ABadChoiceNamesTheNode) {
  const Graph g = testing::ResNetBlocks(8, 1, true, 1);
  absl::StatusOr<Graph> after = AlterLayout(g, Every(16, 8));
  ASSERT_FALSE(after.ok());
  EXPECT_THAT(after.status().message(), ::testing::HasSubstr("node 'conv1'"));
  EXPECT_THAT(after.status().message(), ::testing::HasSubstr("NCHW16c"));
}

// The node-level attributes: types blocked, operator arguments those of the logical node, and
// the errors name the attribute.
TEST(NodeLayoutTest, BlockedNodesKeepTheirLogicalArguments) {
  Builder b;
  ValueId x = b.Input("x", {{1, 2, 5, 5, 4}});
  ValueId y = b.Op("conv2d", {x, b.Constant("w", RandomArray({12, 8, 3, 3}, 1))},
                   {{"data_layout", "NCHW4c"}, {"out_layout", "NCHW6c"}}, "conv");
  b.Output(y);
  const Graph g = Finish(b);
  EXPECT_EQ(g.type(g.outputs[0]).shape, (std::vector<int64_t>{1, 2, 3, 3, 6}));
  absl::StatusOr<nlohmann::json> args = OpArgsOf(g, g.nodes[0]);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(*args, (nlohmann::json{
                       {"n", 1}, {"ic", 8}, {"h", 5}, {"w", 5}, {"oc", 12}, {"kh", 3}, {"kw", 3}}));

  auto error = [](const std::string& op, std::vector<int64_t> shape, nlohmann::json attrs) {
    Builder e;
    ValueId in = e.Input("x", {shape});
    std::vector<ValueId> inputs = {in};
    if (op == "conv2d") inputs.push_back(e.Constant("w", RandomArray({12, 8, 3, 3}, 1)));
    e.Op(op, inputs, std::move(attrs), "node");
    return std::string(e.Finish().status().message());
  };
  EXPECT_THAT(error("relu", {1, 8, 2, 2}, {{"data_layout", "NCHW4c"}}),
              ::testing::HasSubstr("attribute 'data_layout': this operator computes in NCHW"));
  EXPECT_THAT(error("conv2d", {1, 8, 5, 5}, {{"data_layout", "NCHWc"}}),
              ::testing::HasSubstr("attribute 'data_layout'"));
  EXPECT_THAT(error("conv2d", {1, 2, 5, 5, 4}, {{"data_layout", "NCHW8c"}}),
              ::testing::HasSubstr("input 0 (data)"));
  EXPECT_THAT(error("conv2d", {1, 8, 5, 5}, {{"out_layout", "NCHW5c"}}),
              ::testing::HasSubstr("attribute 'out_layout'"));
  EXPECT_THAT(error("conv2d", {1, 8, 5, 5}, {{"out_layout", 4}}),
              ::testing::HasSubstr("attribute 'out_layout' must be a string"));
}

}  // namespace
}  // namespace tessel::graph::passes
