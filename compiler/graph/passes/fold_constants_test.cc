#include "compiler/graph/passes/fold_constants.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/builder.h"
#include "compiler/graph/passes/test_util.h"

namespace tessel::graph::passes {
namespace {

using ::testing::HasSubstr;
using testing::Ops;
using testing::RandomArray;

// x + relu(conv(d, w)) + (transpose(t) * m): two constant subgraphs, one of them a chain.
Graph ConstantSubgraphs() {
  Builder b;
  ValueId x = b.Input("x", {{1, 3, 3, 4}});
  ValueId conv = b.Op("conv2d",
                      {b.Constant("d", RandomArray({1, 2, 5, 6}, 1)),
                       b.Constant("w", RandomArray({3, 2, 3, 3}, 2))},
                      {}, "conv");
  ValueId y = b.Op("add", {x, b.Op("relu", {conv}, {}, "relu")}, {}, "add1");
  ValueId t =
      b.Op("transpose", {b.Constant("t", RandomArray({4, 3}, 3))}, {{"axes", {1, 0}}}, "transpose");
  ValueId s = b.Op("multiply", {t, b.Constant("m", RandomArray({3, 4}, 4))}, {}, "scale");
  b.Output(b.Op("add", {y, s}, {}, "add2"));
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

TEST(FoldConstantsTest, FoldsChainsOfConstantNodes) {
  const Graph before = ConstantSubgraphs();
  absl::StatusOr<Graph> after = FoldConstants(before);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(ToText(*after),
            "input %x : float32[1, 3, 3, 4]\n"
            "const %relu : float32[1, 3, 3, 4]\n"
            "const %scale : float32[3, 4]\n"
            "%add1 = add(%x, %relu) : float32[1, 3, 3, 4]\n"
            "%add2 = add(%add1, %scale) : float32[1, 3, 3, 4]\n"
            "output %add2\n");
  // Our kernels' values against libtorch's evaluation of the unfolded graph.
  testing::ExpectSameOutputs(before, *after, 5);
}

TEST(FoldConstantsTest, RespectsTheSizeCap) {
  // A [16, 1, 1] bias broadcast against [64, 64]: 256 KiB out of 4 KiB of inputs.
  Builder b;
  ValueId x = b.Input("x", {{1, 16, 64, 64}});
  ValueId big = b.Op("add",
                     {b.Constant("bias", RandomArray({16, 1, 1}, 1)),
                      b.Constant("ramp", RandomArray({64, 64}, 2))},
                     {}, "broadcast");
  ValueId small = b.Op("relu", {b.Constant("c", RandomArray({4}, 3))}, {}, "small");
  b.Output(b.Op("multiply", {x, big}, {}, "mul"));
  b.Output(small);
  absl::StatusOr<Graph> before = b.Finish();
  ASSERT_TRUE(before.ok()) << before.status();
  const int64_t big_bytes = 16 * 64 * 64 * 4;

  absl::StatusOr<Graph> capped = FoldConstants(*before, {.max_output_bytes = big_bytes - 1});
  ASSERT_TRUE(capped.ok()) << capped.status();
  EXPECT_EQ(Ops(*capped), (std::vector<std::string>{"add", "multiply"}));
  EXPECT_EQ(capped->value(capped->outputs[1]).kind, ValueKind::kConstant);
  testing::ExpectSameOutputs(*before, *capped, 6);

  absl::StatusOr<Graph> at_cap = FoldConstants(*before, {.max_output_bytes = big_bytes});
  ASSERT_TRUE(at_cap.ok()) << at_cap.status();
  EXPECT_EQ(Ops(*at_cap), (std::vector<std::string>{"multiply"}));
  EXPECT_EQ(at_cap->ConstantBytes(), big_bytes + 4 * 4);
  testing::ExpectSameOutputs(*before, *at_cap, 6);

  absl::StatusOr<Graph> nothing = FoldConstants(*before, {.max_output_bytes = 0});
  ASSERT_TRUE(nothing.ok()) << nothing.status();
  EXPECT_EQ(ToText(*nothing), ToText(*before));
}

TEST(FoldConstantsTest, FoldsEveryOutputOfANode) {
  Builder b;
  ValueId x = b.Input("x", {{2, 4}});
  std::vector<ValueId> cell =
      b.Add("lstm_cell",
            {b.Constant("cx", RandomArray({2, 5}, 1)), b.Constant("ch", RandomArray({2, 4}, 2)),
             b.Constant("cc", RandomArray({2, 4}, 3)), b.Constant("wi", RandomArray({16, 5}, 4)),
             b.Constant("wh", RandomArray({16, 4}, 5)), b.Constant("bi", RandomArray({16}, 6)),
             b.Constant("bh", RandomArray({16}, 7))},
            {}, "cell");
  b.Output(b.Op("add", {x, cell[0]}, {}, "add"));
  b.Output(cell[1]);
  absl::StatusOr<Graph> before = b.Finish();
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<Graph> after = FoldConstants(*before);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(ToText(*after),
            "input %x : float32[2, 4]\n"
            "const %cell:0 : float32[2, 4]\n"
            "const %cell:1 : float32[2, 4]\n"
            "%add = add(%x, %cell:0) : float32[2, 4]\n"
            "output %add, %cell:1\n");
  testing::ExpectSameOutputs(*before, *after, 8);
}

// Weights reshaped and padded at run time, as exporters write them; the block's own nodes all
// read the input and stay.
TEST(FoldConstantsTest, ResNetBlockWithWeightPreprocessing) {
  const Graph block = testing::ResNetBlocks(4, 1, true, 21);
  Builder b;
  ValueId x = b.Input("x", {{1, 4, 8, 8}});
  ValueId flat = b.Constant("w_flat", RandomArray({4 * 4}, 22));
  ValueId w = b.Op("reshape", {flat}, {{"newshape", {4, 4, 1, 1}}}, "w_reshape");
  w = b.Op("pad", {w}, {{"pad_before", {0, 0, 1, 1}}, {"pad_after", {0, 0, 1, 1}}}, "w_pad");
  ValueId y = b.Op("conv2d", {x, w}, {{"pad", {1, 1, 1, 1}}}, "conv");
  y = testing::AddBatchNorm(b, y, 4, "bn", 23);
  b.Output(b.Op("relu", {y}, {}, "relu"));
  absl::StatusOr<Graph> before = b.Finish();
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<Graph> after = FoldConstants(*before);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(Ops(*after), (std::vector<std::string>{"conv2d", "batch_norm", "relu"}));
  EXPECT_EQ(after->value(after->nodes[0].inputs[1]).name, "w_pad");
  EXPECT_EQ(after->value(after->nodes[0].inputs[1]).kind, ValueKind::kConstant);
  testing::ExpectSameOutputs(*before, *after, 24);

  absl::StatusOr<Graph> same = FoldConstants(block);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(ToText(*same), ToText(block));
}

TEST(FoldConstantsTest, NegativeCapIsAnError) {
  const Graph g = ConstantSubgraphs();
  absl::StatusOr<Graph> after = FoldConstants(g, {.max_output_bytes = -1});
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(after.status().message()),
              HasSubstr("FoldConstantsOptions.max_output_bytes must be >= 0, got -1"));
}

}  // namespace
}  // namespace tessel::graph::passes
