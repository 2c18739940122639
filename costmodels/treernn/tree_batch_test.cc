// PackForest against hand-worked packings, and its errors for malformed trees.
#include "costmodels/treernn/tree_batch.h"

#include <gtest/gtest.h>

namespace tessel::costmodels::treernn {
namespace {

LoopTree::Node Node(float value, std::vector<int> children) {
  return {.features = {value, -value}, .children = std::move(children)};
}

// Tree A: 0 -> 1 -> 2 (a chain, heights 2, 1, 0).
// Tree B: 0 -> {1, 2}, 1 -> 3 (heights 2, 1, 0, 0).
TEST(PackForestTest, GroupsNodesByHeightAcrossTrees) {
  LoopTree a{.nodes = {Node(1, {1}), Node(2, {2}), Node(3, {})}};
  LoopTree b{.nodes = {Node(10, {1, 2}), Node(11, {3}), Node(12, {}), Node(13, {})}};
  absl::StatusOr<PackedForest> forest = PackForest({&a, &b}, 2);
  ASSERT_TRUE(forest.ok()) << forest.status();

  // Level 0: a2, b2, b3; level 1: a1, b1; level 2: a0, b0.
  EXPECT_EQ(forest->num_trees, 2);
  EXPECT_EQ(forest->level_offsets, (std::vector<int64_t>{0, 3, 5, 7}));
  std::vector<float> firsts;
  for (size_t i = 0; i < forest->features.size(); i += 2) {
    firsts.push_back(forest->features[i]);
    EXPECT_EQ(forest->features[i + 1], -forest->features[i]);
  }
  EXPECT_EQ(firsts, (std::vector<float>{3, 12, 13, 2, 11, 1, 10}));

  ASSERT_EQ(forest->edges.size(), 3u);
  EXPECT_TRUE(forest->edges[0].empty());
  // Level 1: a1 <- a2 (level 0 position 0), b1 <- b3 (level 0 position 2).
  ASSERT_EQ(forest->edges[1].size(), 1u);
  EXPECT_EQ(forest->edges[1][0].child_level, 0);
  EXPECT_EQ(forest->edges[1][0].child, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(forest->edges[1][0].parent, (std::vector<int64_t>{0, 1}));
  // Level 2: b0 <- b2 from level 0; a0 <- a1 and b0 <- b1 from level 1.
  ASSERT_EQ(forest->edges[2].size(), 2u);
  EXPECT_EQ(forest->edges[2][0].child_level, 0);
  EXPECT_EQ(forest->edges[2][0].child, (std::vector<int64_t>{1}));
  EXPECT_EQ(forest->edges[2][0].parent, (std::vector<int64_t>{1}));
  EXPECT_EQ(forest->edges[2][1].child_level, 1);
  EXPECT_EQ(forest->edges[2][1].child, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(forest->edges[2][1].parent, (std::vector<int64_t>{0, 1}));

  EXPECT_EQ(forest->root_level, (std::vector<int>{2, 2}));
  EXPECT_EQ(forest->root_position, (std::vector<int64_t>{0, 1}));
}

TEST(PackForestTest, RootsOfDifferentHeights) {
  LoopTree leaf{.nodes = {Node(1, {})}};
  LoopTree pair{.nodes = {Node(2, {1}), Node(3, {})}};
  absl::StatusOr<PackedForest> forest = PackForest({&pair, &leaf}, 2);
  ASSERT_TRUE(forest.ok()) << forest.status();
  EXPECT_EQ(forest->level_offsets, (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(forest->root_level, (std::vector<int>{1, 0}));
  EXPECT_EQ(forest->root_position, (std::vector<int64_t>{0, 1}));
}

TEST(PackForestTest, EmptyForest) {
  absl::StatusOr<PackedForest> forest = PackForest({}, 3);
  ASSERT_TRUE(forest.ok()) << forest.status();
  EXPECT_EQ(forest->num_levels(), 0);
  EXPECT_TRUE(forest->features.empty());
}

void ExpectError(const LoopTree& tree, const std::string& message) {
  LoopTree fine{.nodes = {Node(1, {})}};
  absl::StatusOr<PackedForest> forest = PackForest({&fine, &tree}, 2);
  ASSERT_FALSE(forest.ok());
  EXPECT_EQ(forest.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(forest.status().message().find(message), std::string::npos) << forest.status();
}

TEST(PackForestTest, RejectsMalformedTrees) {
  ExpectError(LoopTree{}, "loop tree 1 is empty");
  ExpectError(LoopTree{.nodes = {Node(1, {1}), Node(2, {1})}}, "loop tree 1 node 1 has child 1");
  ExpectError(LoopTree{.nodes = {Node(1, {2}), Node(2, {})}}, "loop tree 1 node 0 has child 2");
  ExpectError(LoopTree{.nodes = {Node(1, {1, 2}), Node(2, {2}), Node(3, {})}},
              "loop tree 1 node 2 has 2 parents");
  ExpectError(LoopTree{.nodes = {Node(1, {}), Node(2, {})}}, "loop tree 1 node 1 has 0 parents");
  LoopTree narrow{.nodes = {Node(1, {1}), {.features = {1}, .children = {}}}};
  ExpectError(narrow, "loop tree 1 node 1 has 1 features, expected 2");
}

}  // namespace
}  // namespace tessel::costmodels::treernn
