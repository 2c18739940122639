#include "compiler/graph/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "compiler/graph/builder.h"
#include "compiler/graph/op_registry.h"
#include "compiler/ops/logical_op.h"

namespace tessel::graph {
namespace {

using ::testing::HasSubstr;

runtime::NDArray Zeros(std::vector<int64_t> shape) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), kFloat32);
  std::fill(a.data<float>(), a.data<float>() + a.NumElements(), 0.0f);
  return a;
}

// x [1, 3, 8, 8] -> conv 3x3 stride 2 pad 1 (16 channels) -> relu -> + bias [16, 1, 1].
Builder SmallNet() {
  Builder b;
  ValueId x = b.Input("x", {{1, 3, 8, 8}});
  ValueId w = b.Constant("w", Zeros({16, 3, 3, 3}));
  ValueId bias = b.Constant("bias", Zeros({16, 1, 1}));
  ValueId y = b.Op("conv2d", {x, w}, {{"stride", {2, 2}}, {"pad", {1, 1, 1, 1}}}, "conv");
  y = b.Op("relu", {y});
  y = b.Op("add", {y, bias}, {}, "bias_add");
  b.Output(y);
  return b;
}

TEST(GraphTest, BuilderInfersTypes) {
  Builder b = SmallNet();
  absl::StatusOr<Graph> g = b.Finish();
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 3u);
  EXPECT_EQ(g->type(g->nodes[0].outputs[0]), (TensorType{{1, 16, 4, 4}}));
  EXPECT_EQ(g->type(g->outputs[0]), (TensorType{{1, 16, 4, 4}}));
  EXPECT_EQ(g->nodes[1].name, "relu_0");
  EXPECT_EQ(g->ConstantBytes(), (16 * 27 + 16) * 4);
  std::vector<std::vector<int>> consumers = g->Consumers();
  EXPECT_EQ(consumers[static_cast<size_t>(g->nodes[0].outputs[0])], std::vector<int>{1});
  absl::StatusOr<nlohmann::json> args = OpArgsOf(*g, g->nodes[0]);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ((*args)["oc"], 16);
  EXPECT_EQ((*args)["stride"], nlohmann::json({2, 2}));
  EXPECT_THAT(ToText(*g), HasSubstr("%conv = conv2d(%x, %w)"));
}

TEST(GraphTest, LstmCellHasTwoOutputs) {
  Builder b;
  ValueId x = b.Input("x", {{2, 5}});
  ValueId h = b.Input("h", {{2, 4}});
  ValueId c = b.Input("c", {{2, 4}});
  std::vector<ValueId> out =
      b.Add("lstm_cell",
            {x, h, c, b.Constant("wi", Zeros({16, 5})), b.Constant("wh", Zeros({16, 4})),
             b.Constant("bi", Zeros({16})), b.Constant("bh", Zeros({16}))},
            {}, "cell");
  ASSERT_EQ(out.size(), 2u);
  b.Output(out[0]);
  b.Output(out[1]);
  absl::StatusOr<Graph> g = b.Finish();
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->value(out[1]).name, "cell:1");
  EXPECT_EQ(g->type(out[1]), (TensorType{{2, 4}}));
}

TEST(GraphTest, ErrorsNameTheNode) {
  struct Case {
    std::function<void(Builder&, ValueId)> build;
    std::string message;
  };
  std::vector<Case> cases = {
      {[](Builder& b, ValueId x) { b.Op("conv9d", {x}, {}, "n1"); },
       "node 'n1' (conv9d): unknown graph operator 'conv9d'"},
      {[](Builder& b, ValueId x) {
         b.Op("relu", {x, x}, {}, "n2");
       },
       "node 'n2' (relu): relu takes 1 inputs, got 2"},
      {[](Builder& b, ValueId x) {
         b.Op("conv2d", {x, b.Constant("w", Zeros({4, 3, 3}))}, {}, "n3");
       },
       "node 'n3' (conv2d): conv2d: input 1 (weight) must have 4 dimensions"},
      {[](Builder& b, ValueId x) {
         b.Op("conv2d", {x, b.Constant("w", Zeros({4, 5, 3, 3}))}, {}, "n4");
       },
       "node 'n4' (conv2d): conv2d: input 1 ('weight') must be float32[4, 3, 3, 3], got "
       "float32[4, 5, 3, 3]"},
      {[](Builder& b, ValueId x) {
         b.Op("conv2d", {x, b.Constant("w", Zeros({4, 1, 3, 3}))}, {{"groups", 2}}, "n8");
       },
       "node 'n8' (conv2d): conv2d: 'groups' (2) must divide 'ic' (3) and 'oc' (4)"},
      {[](Builder& b, ValueId x) {
         b.Op("max_pool2d", {x}, {{"kh", 2}, {"kw", 2}, {"pad", {2, 0, 0, 0}}}, "n9");
       },
       "node 'n9' (max_pool2d): max_pool2d: argument 'pad' entries must be smaller than the "
       "kernel"},
      {[](Builder& b, ValueId x) {
         b.Op("relu", {x}, {{"shape", {1}}}, "n5");
       },
       "attribute 'shape' is not an attribute"},
      {[](Builder& b, ValueId x) {
         b.Op("add", {x, b.Constant("v", Zeros({5}))}, {}, "n6");
       },
       "node 'n6' (add)"},
      {[](Builder& b, ValueId x) {
         ValueId y = b.Op("relu", {x}, {}, "dup");
         b.Op("relu", {y}, {}, "dup");
       },
       "node 'dup' (relu): a node of this name exists"},
      {[](Builder& b, ValueId x) { b.Op("relu", {x + 100}, {}, "n7"); },
       "node 'n7' (relu): input %100 does not exist"},
  };
  for (const Case& c : cases) {
    Builder b;
    ValueId x = b.Input("x", {{1, 3, 8, 8}});
    c.build(b, x);
    b.Output(x);
    absl::StatusOr<Graph> g = b.Finish();
    ASSERT_FALSE(g.ok()) << c.message;
    EXPECT_THAT(std::string(g.status().message()), HasSubstr(c.message));
  }
}

TEST(GraphTest, FirstErrorIsKeptAndLaterNodesAreQuiet) {
  Builder b;
  ValueId x = b.Input("x", {{2, 3}});
  ValueId y = b.Op("softmax", {x}, {{"axis", 7}}, "bad");
  ValueId z = b.Op("relu", {y}, {}, "after");
  b.Output(z);
  absl::StatusOr<Graph> g = b.Finish();
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("node 'bad' (softmax): softmax: argument 'axis' must be below the rank 2"));
}

TEST(GraphTest, VerifyCatchesBrokenGraphs) {
  absl::StatusOr<Graph> good = SmallNet().Finish();
  ASSERT_TRUE(good.ok());
  {
    Graph g = *good;
    std::swap(g.nodes[0], g.nodes[1]);  // relu before the conv it reads
    EXPECT_THAT(std::string(Verify(g).message()), HasSubstr("not defined before the node"));
  }
  {
    Graph g = *good;
    g.values[static_cast<size_t>(g.nodes[1].outputs[0])].type.shape = {1, 16, 5, 5};
    EXPECT_THAT(std::string(Verify(g).message()), HasSubstr("the operator gives"));
  }
  {
    Graph g = *good;
    g.values[1].data = Zeros({2});
    EXPECT_THAT(std::string(Verify(g).message()), HasSubstr("constant 'w'"));
  }
  {
    Graph g = *good;
    g.nodes[2].name = "conv";
    EXPECT_THAT(std::string(Verify(g).message()), HasSubstr("two nodes are named 'conv'"));
  }
  {
    Graph g = *good;
    g.outputs.clear();
    EXPECT_THAT(std::string(Verify(g).message()), HasSubstr("no outputs"));
  }
}

TEST(GraphTest, JsonRoundTrip) {
  absl::StatusOr<Graph> g = SmallNet().Finish();
  ASSERT_TRUE(g.ok());
  nlohmann::json j = ToJson(*g);
  absl::StatusOr<Graph> back = FromJson(j, {{"w", g->value(1).data}, {"bias", g->value(2).data}});
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ToText(*back), ToText(*g));
  EXPECT_EQ(ToJson(*back), j);

  absl::StatusOr<Graph> missing = FromJson(j, {{"w", g->value(1).data}});
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("constant 'bias'"));
  nlohmann::json broken = j;
  broken["nodes"][1].erase("op");
  EXPECT_THAT(std::string(FromJson(broken, {}).status().message()), HasSubstr("nodes[1]"));
}

TEST(GraphTest, EveryOperatorHasALogicalSignature) {
  const std::vector<std::string> names = ops::LogicalOpNames();
  const std::set<std::string> with_signature(names.begin(), names.end());
  for (const std::string& name : OpDefNames()) {
    absl::StatusOr<const OpDef*> def = FindOpDef(name);
    ASSERT_TRUE(def.ok());
    EXPECT_TRUE((*def)->op_args != nullptr) << name;
    EXPECT_TRUE(with_signature.count(name)) << name;
  }
  EXPECT_GE(OpDefNames().size(), 30u);
}

}  // namespace
}  // namespace tessel::graph
