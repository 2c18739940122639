#include "compiler/graph/passes/dead_code.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/builder.h"
#include "compiler/graph/passes/test_util.h"

namespace tessel::graph::passes {
namespace {

using testing::Ops;
using testing::RandomArray;

// x, unused -> relu -> add(., c) -> output; a dead branch x -> sigmoid -> multiply(., d) and a
// dead constant chain of its own.
Graph WithDeadBranch() {
  Builder b;
  ValueId x = b.Input("x", {{2, 4}});
  b.Input("unused", {{3}});
  ValueId c = b.Constant("c", RandomArray({4}, 1));
  ValueId d = b.Constant("d", RandomArray({2, 4}, 2));
  ValueId y = b.Op("relu", {x}, {}, "relu");
  b.Op("multiply", {b.Op("sigmoid", {x}, {}, "dead_sigmoid"), d}, {}, "dead_mul");
  y = b.Op("add", {y, c}, {}, "add");
  b.Op("tanh", {b.Constant("e", RandomArray({5}, 3))}, {}, "dead_tanh");
  b.Output(y);
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

TEST(DeadCodeTest, RemovesNodesAndConstantsNoOutputNeeds) {
  const Graph before = WithDeadBranch();
  absl::StatusOr<Graph> after = EliminateDeadCode(before);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(ToText(*after),
            "input %x : float32[2, 4]\n"
            "input %unused : float32[3]\n"
            "const %c : float32[4]\n"
            "%relu = relu(%x) : float32[2, 4]\n"
            "%add = add(%relu, %c) : float32[2, 4]\n"
            "output %add\n");
  // The constant's data is shared, not copied.
  EXPECT_TRUE(after->value(after->nodes[1].inputs[1]).data.same_as(before.value(2).data));
  testing::ExpectSameOutputs(before, *after, 7);
}

TEST(DeadCodeTest, KeepsEveryNodeAnOutputNeedsAndIsIdempotent) {
  const Graph before = testing::ResNetBlocks(4, 2, true, 11);
  absl::StatusOr<Graph> after = EliminateDeadCode(before);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(ToText(*after), ToText(before));
  absl::StatusOr<Graph> again = EliminateDeadCode(*after);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ToText(*again), ToText(before));
}

// Outputs may be inputs, constants, several outputs of a node, or one value twice.
TEST(DeadCodeTest, OutputsOfEveryKind) {
  Builder b;
  ValueId x = b.Input("x", {{2, 5}});
  ValueId h = b.Input("h", {{2, 4}});
  ValueId c = b.Input("c", {{2, 4}});
  std::vector<ValueId> cell =
      b.Add("lstm_cell",
            {x, h, c, b.Constant("wi", RandomArray({16, 5}, 1)),
             b.Constant("wh", RandomArray({16, 4}, 2)), b.Constant("bi", RandomArray({16}, 3)),
             b.Constant("bh", RandomArray({16}, 4))},
            {}, "cell");
  ValueId k = b.Constant("k", RandomArray({2, 4}, 5));
  b.Op("relu", {cell[0]}, {}, "dead");
  b.Output(cell[1]);
  b.Output(x);
  b.Output(k);
  b.Output(cell[1]);
  absl::StatusOr<Graph> before = b.Finish();
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<Graph> after = EliminateDeadCode(*before);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(Ops(*after), std::vector<std::string>{"lstm_cell"});
  ASSERT_EQ(after->outputs.size(), 4u);
  EXPECT_EQ(after->value(after->outputs[0]).name, "cell:1");
  EXPECT_EQ(after->value(after->outputs[1]).name, "x");
  EXPECT_EQ(after->value(after->outputs[2]).name, "k");
  EXPECT_EQ(after->outputs[3], after->outputs[0]);
  testing::ExpectSameOutputs(*before, *after, 3);
}

// A graph whose names do not follow Builder's convention and clash once rebuilt.
TEST(DeadCodeTest, NamesThatDoNotRebuildAreAnError) {
  Builder b;
  ValueId x = b.Input("x", {{2}});
  b.Output(b.Op("relu", {x}, {}, "r"));
  absl::StatusOr<Graph> g = b.Finish();
  ASSERT_TRUE(g.ok());
  g->values[1].name = "y";  // relu's output
  g->nodes[0].name = "x";   // rebuilt, its output would be named "x" too
  ASSERT_TRUE(Verify(*g).ok());
  absl::StatusOr<Graph> after = EliminateDeadCode(*g);
  ASSERT_FALSE(after.ok());
  EXPECT_THAT(std::string(after.status().message()),
              ::testing::HasSubstr("two values are named 'x'"));
}

}  // namespace
}  // namespace tessel::graph::passes
