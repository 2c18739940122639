#include "compiler/graph/passes/fold_batch_norm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/builder.h"
#include "compiler/graph/passes/test_util.h"

namespace tessel::graph::passes {
namespace {

using testing::AddBatchNorm;
using testing::CountOp;
using testing::Ops;
using testing::RandomArray;

Graph Finish(Builder& b) {
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph{};
}

Graph Fold(const Graph& g) {
  absl::StatusOr<Graph> after = FoldBatchNorm(g);
  EXPECT_TRUE(after.ok()) << after.status();
  return after.ok() ? *std::move(after) : Graph{};
}

TEST(FoldBatchNormTest, ResNetBlockFoldsIntoConvolutions) {
  const Graph before = testing::ResNetBlocks(8, 1, true, 1);
  EXPECT_EQ(Ops(before), (std::vector<std::string>{"conv2d", "add", "batch_norm", "relu", "conv2d",
                                                   "batch_norm", "add", "relu"}));
  const Graph after = Fold(before);
  EXPECT_EQ(ToText(after),
            "input %x : float32[1, 8, 8, 8]\n"
            "const %bn1.weight : float32[8, 8, 3, 3]\n"
            "const %bn1.bias : float32[8, 1, 1]\n"
            "const %bn2.weight : float32[8, 8, 3, 3]\n"
            "const %bn2.bias : float32[8, 1, 1]\n"
            "%conv1 = conv2d(%x, %bn1.weight) {\"pad\":[1,1,1,1]} : float32[1, 8, 8, 8]\n"
            "%bn1 = add(%conv1, %bn1.bias) : float32[1, 8, 8, 8]\n"
            "%relu1 = relu(%bn1) : float32[1, 8, 8, 8]\n"
            "%conv2 = conv2d(%relu1, %bn2.weight) {\"pad\":[1,1,1,1]} : float32[1, 8, 8, 8]\n"
            "%bn2 = add(%conv2, %bn2.bias) : float32[1, 8, 8, 8]\n"
            "%residual = add(%bn2, %x) : float32[1, 8, 8, 8]\n"
            "%relu2 = relu(%residual) : float32[1, 8, 8, 8]\n"
            "output %relu2\n");
  testing::ExpectSameOutputs(before, after, 2);

  const Graph two = testing::ResNetBlocks(8, 2, false, 3);
  const Graph two_after = Fold(two);
  EXPECT_EQ(CountOp(two_after, "batch_norm"), 0);
  EXPECT_EQ(CountOp(two_after, "conv2d"), 4);
  EXPECT_EQ(two_after.nodes.size(), two.nodes.size());
  EXPECT_LT(two_after.ConstantBytes(), two.ConstantBytes());
  testing::ExpectSameOutputs(two, two_after, 4);
}

// Depthwise convolution, the bias on the left as [1, C, 1, 1], batch 2.
TEST(FoldBatchNormTest, GroupedConvolutionAndBiasOnTheLeft) {
  Builder b;
  ValueId x = b.Input("x", {{2, 6, 7, 7}});
  ValueId y = b.Op("conv2d", {x, b.Constant("w", RandomArray({6, 1, 3, 3}, 1))},
                   {{"groups", 6}, {"stride", {2, 2}}}, "dw");
  y = b.Op("add", {b.Constant("bias", RandomArray({1, 6, 1, 1}, 2)), y}, {}, "bias_add");
  b.Output(AddBatchNorm(b, y, 6, "bn", 3));
  const Graph before = Finish(b);
  const Graph after = Fold(before);
  EXPECT_EQ(Ops(after), (std::vector<std::string>{"conv2d", "add"}));
  EXPECT_EQ(after.nodes[0].attrs, before.nodes[0].attrs);
  EXPECT_EQ(after.value(after.outputs[0]).name, "bn");
  testing::ExpectSameOutputs(before, after, 4);
}

// Where the convolution cannot absorb the batch_norm, it becomes multiply + add.
TEST(FoldBatchNormTest, StandaloneBatchNormBecomesMultiplyAdd) {
  struct Case {
    std::string what;
    std::function<ValueId(Builder&, ValueId)> build;  // returns the batch_norm's input
    std::vector<std::string> ops;
  };
  const std::vector<std::string> kept_conv = {"conv2d", "multiply", "add"};
  std::vector<Case> cases = {
      {"on an input", [](Builder&, ValueId x) { return x; }, {"multiply", "add"}},
      {"conv output read twice",
       [](Builder& b, ValueId x) {
         ValueId c = b.Op("conv2d", {x, b.Constant("w", RandomArray({4, 4, 1, 1}, 1))}, {}, "c");
         b.Output(b.Op("relu", {c}, {}, "other_reader"));
         return c;
       },
       {"conv2d", "relu", "multiply", "add"}},
      {"conv output is a graph output",
       [](Builder& b, ValueId x) {
         ValueId c = b.Op("conv2d", {x, b.Constant("w", RandomArray({4, 4, 1, 1}, 1))}, {}, "c");
         b.Output(c);
         return c;
       },
       kept_conv},
      {"weight not constant",
       [](Builder& b, ValueId x) {
         return b.Op("conv2d", {x, b.Input("w", {{4, 4, 1, 1}})}, {}, "c");
       },
       kept_conv},
      {"bias not per channel",
       [](Builder& b, ValueId x) {
         ValueId c = b.Op("conv2d", {x, b.Constant("w", RandomArray({4, 4, 1, 1}, 1))}, {}, "c");
         return b.Op("add", {c, b.Constant("bias", RandomArray({4, 5, 5}, 2))}, {}, "bias_add");
       },
       {"conv2d", "add", "multiply", "add"}},
      {"bias add's output read twice",
       [](Builder& b, ValueId x) {
         ValueId c = b.Op("conv2d", {x, b.Constant("w", RandomArray({4, 4, 1, 1}, 1))}, {}, "c");
         ValueId a = b.Op("add", {c, b.Constant("bias", RandomArray({4, 1, 1}, 2))}, {}, "a");
         b.Output(b.Op("sigmoid", {a}, {}, "other_reader"));
         return a;
       },
       {"conv2d", "add", "sigmoid", "multiply", "add"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Builder b;
    ValueId x = b.Input("x", {{1, 4, 5, 5}});
    b.Output(AddBatchNorm(b, c.build(b, x), 4, "bn", 5));
    const Graph before = Finish(b);
    const Graph after = Fold(before);
    EXPECT_EQ(Ops(after), c.ops);
    EXPECT_EQ(CountOp(after, "batch_norm"), 0);
    EXPECT_EQ(after.value(after.outputs.back()).name, "bn");
    testing::ExpectSameOutputs(before, after, 6);
  }
}

TEST(FoldBatchNormTest, StandaloneNamesAndShapes) {
  Builder b;
  ValueId x = b.Input("x", {{1, 3, 2, 2}});
  b.Output(AddBatchNorm(b, x, 3, "bn", 1));
  const Graph after = Fold(Finish(b));
  EXPECT_EQ(ToText(after),
            "input %x : float32[1, 3, 2, 2]\n"
            "const %bn.scale : float32[3, 1, 1]\n"
            "const %bn.shift : float32[3, 1, 1]\n"
            "%bn.mul = multiply(%x, %bn.scale) : float32[1, 3, 2, 2]\n"
            "%bn = add(%bn.mul, %bn.shift) : float32[1, 3, 2, 2]\n"
            "output %bn\n");
}

TEST(FoldBatchNormTest, StatisticsThatAreNotConstantStay) {
  Builder b;
  ValueId x = b.Input("x", {{1, 3, 2, 2}});
  ValueId mean = b.Input("mean", {{3}});
  ValueId c = b.Op("conv2d", {x, b.Constant("w", RandomArray({3, 3, 1, 1}, 1))}, {}, "c");
  b.Output(b.Op("batch_norm",
                {c, b.Constant("g", RandomArray({3}, 2)), b.Constant("be", RandomArray({3}, 3)),
                 mean, b.Constant("v", RandomArray({3}, 4, 0.5f, 1.5f))},
                {}, "bn"));
  const Graph before = Finish(b);
  const Graph after = Fold(before);
  EXPECT_EQ(ToText(after), ToText(before));
}

}  // namespace
}  // namespace tessel::graph::passes
