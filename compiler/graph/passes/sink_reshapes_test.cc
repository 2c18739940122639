// SinkReshapes: element-wise nodes, softmax and keepdims reductions move above the reshape they
// read, so that a matrix product and its bias add, activation and residual add fuse; the graph
// computes the same values (both evaluated by libtorch).
#include "compiler/graph/passes/sink_reshapes.h"

#include <gtest/gtest.h>

#include "compiler/graph/passes/fuse_ops.h"
#include "compiler/graph/passes/test_util.h"

namespace tessel::graph::passes {
namespace {

using testing::CountOp;
using testing::ExpectSameOutputs;
using testing::RandomArray;

// x [1, 4, 6] as PyTorch exports a linear layer of a 3-D tensor (reshape, matmul, reshape), then
// a bias add, relu, a residual add of x's projection and a layer norm's first steps.
Graph ExportedLinear() {
  Builder b;
  const ValueId x = b.Input("x", {{1, 4, 6}});
  ValueId rows = b.Op("reshape", {x}, {{"newshape", {4, 6}}}, "x_rows");
  ValueId y = b.Op("matmul", {rows, b.Constant("w", RandomArray({6, 6}, 1))}, {}, "matmul");
  y = b.Op("reshape", {y}, {{"newshape", {1, 4, 6}}}, "y3");
  y = b.Op("add", {b.Constant("bias", RandomArray({6}, 2)), y}, {}, "bias_add");
  y = b.Op("relu", {y}, {}, "relu");
  y = b.Op("add", {y, x}, {}, "residual");
  const ValueId mean = b.Op("reduce_mean", {y}, {{"axes", {-1}}, {"keepdims", true}}, "mean");
  y = b.Op("subtract", {y, mean}, {}, "centered");
  y = b.Op("softmax", {y}, {{"axis", -1}}, "softmax");
  b.Output(y);
  return *b.Finish();
}

TEST(SinkReshapesTest, ElementwiseAfterAMatrixProductComputesOnItsRows) {
  const Graph g = ExportedLinear();
  absl::StatusOr<Graph> sunk = SinkReshapes(g);
  ASSERT_TRUE(sunk.ok()) << sunk.status();
  // One reshape in front of the matmul, one of x for the residual, one at the end.
  EXPECT_EQ(CountOp(*sunk, "reshape"), 3) << ToText(*sunk);
  for (const Node& n : sunk->nodes) {
    if (n.op == "add" || n.op == "relu" || n.op == "reduce_mean" || n.op == "softmax") {
      EXPECT_EQ(sunk->type(n.outputs[0]).shape.size(), 2u) << n.name << "\n" << ToText(*sunk);
    }
  }
  EXPECT_EQ(sunk->value(sunk->outputs[0]).name, "softmax");
  EXPECT_EQ(sunk->type(sunk->outputs[0]).shape, (std::vector<int64_t>{1, 4, 6}));
  ExpectSameOutputs(g, *sunk, 3);
  // The matmul's bias add and relu are now its output stage.
  auto matmul_group_size = [](const Graph& graph) {
    absl::StatusOr<FusionPlan> plan = FuseOps(graph);
    EXPECT_TRUE(plan.ok()) << plan.status();
    for (const FusionGroup& group : plan->groups) {
      if (group.master >= 0 && graph.nodes[static_cast<size_t>(group.master)].op == "matmul") {
        std::cout << FusionPlanToText(graph, *plan);
        return group.nodes.size();
      }
    }
    return size_t{0};
  };
  EXPECT_EQ(matmul_group_size(g), 1u);
  EXPECT_GE(matmul_group_size(*sunk), 4u);  // matmul, bias add, relu, residual add
}

TEST(SinkReshapesTest, BroadcastOutsideTheKeptAxesStays) {
  // [2, 3] -> [3, 2] keeps nothing; [2, 3, 4] -> [6, 4] with an operand [6, 1] (not all ones
  // before the kept axis) stays as it is.
  Builder b;
  const ValueId x = b.Input("x", {{2, 3}});
  ValueId y = b.Op("reshape", {x}, {{"newshape", {3, 2}}}, "swap");
  y = b.Op("relu", {y}, {}, "relu");
  const ValueId z = b.Input("z", {{2, 3, 4}});
  ValueId w = b.Op("reshape", {z}, {{"newshape", {6, 4}}}, "rows");
  w = b.Op("multiply", {w, b.Constant("scale", RandomArray({6, 1}, 4))}, {}, "scale_rows");
  b.Output(y);
  b.Output(w);
  const Graph g = *b.Finish();
  absl::StatusOr<Graph> sunk = SinkReshapes(g);
  ASSERT_TRUE(sunk.ok()) << sunk.status();
  EXPECT_EQ(testing::Ops(*sunk), testing::Ops(g)) << ToText(*sunk);
  ExpectSameOutputs(g, *sunk, 5);
}

TEST(SinkReshapesTest, ReshapeChainsCollapse) {
  Builder b;
  const ValueId x = b.Input("x", {{2, 3, 4}});
  ValueId y = b.Op("reshape", {x}, {{"newshape", {6, 4}}}, "a");
  y = b.Op("reshape", {y}, {{"newshape", {24}}}, "b");
  y = b.Op("reshape", {y}, {{"newshape", {2, 3, 4}}}, "c");
  y = b.Op("tanh", {y}, {}, "tanh");
  b.Output(y);
  const Graph g = *b.Finish();
  absl::StatusOr<Graph> sunk = SinkReshapes(g);
  ASSERT_TRUE(sunk.ok()) << sunk.status();
  EXPECT_EQ(testing::Ops(*sunk), std::vector<std::string>{"tanh"}) << ToText(*sunk);
  ExpectSameOutputs(g, *sunk, 6);
}

}  // namespace
}  // namespace tessel::graph::passes
