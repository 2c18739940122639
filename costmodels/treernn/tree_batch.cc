#include "costmodels/treernn/tree_batch.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

namespace tessel::costmodels::treernn {
namespace {

struct Edge {
  int parent_level;
  int child_level;
  int64_t child;   // position within the child's level
  int64_t parent;  // position within the parent's level
};

// Heights of the tree's nodes after checking its shape and widths.
absl::StatusOr<std::vector<int>> Heights(const LoopTree& tree, int width, size_t which) {
  const int n = static_cast<int>(tree.nodes.size());
  if (n == 0) return absl::InvalidArgumentError(absl::StrCat("loop tree ", which, " is empty"));
  std::vector<int> parents(n, 0);
  for (int i = 0; i < n; ++i) {
    const LoopTree::Node& node = tree.nodes[i];
    if (static_cast<int>(node.features.size()) != width) {
      return absl::InvalidArgumentError(absl::StrCat("loop tree ", which, " node ", i, " has ",
                                                     node.features.size(), " features, expected ",
                                                     width));
    }
    for (int c : node.children) {
      if (c <= i || c >= n) {
        return absl::InvalidArgumentError(absl::StrCat("loop tree ", which, " node ", i,
                                                       " has child ", c, " (of ", n, " nodes)"));
      }
      ++parents[c];
    }
  }
  for (int i = 1; i < n; ++i) {
    if (parents[i] != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("loop tree ", which, " node ", i, " has ", parents[i], " parents"));
    }
  }
  std::vector<int> height(n, 0);
  for (int i = n - 1; i >= 0; --i) {
    for (int c : tree.nodes[i].children) height[i] = std::max(height[i], height[c] + 1);
  }
  return height;
}

}  // namespace

absl::StatusOr<PackedForest> PackForest(const std::vector<const LoopTree*>& trees, int width) {
  PackedForest forest;
  forest.width = width;
  forest.num_trees = static_cast<int>(trees.size());
  std::vector<std::vector<int>> heights;
  heights.reserve(trees.size());
  int num_levels = 0;
  for (size_t t = 0; t < trees.size(); ++t) {
    absl::StatusOr<std::vector<int>> height = Heights(*trees[t], width, t);
    if (!height.ok()) return height.status();
    num_levels = std::max(num_levels, height->front() + 1);  // the root is the highest node
    heights.push_back(*std::move(height));
  }

  std::vector<int64_t> level_size(num_levels, 0);
  for (const std::vector<int>& height : heights) {
    for (int h : height) ++level_size[h];
  }
  forest.level_offsets.assign(num_levels + 1, 0);
  for (int h = 0; h < num_levels; ++h) {
    forest.level_offsets[h + 1] = forest.level_offsets[h] + level_size[h];
  }
  forest.features.resize(static_cast<size_t>(forest.level_offsets.back()) * width);

  // Tree-major visiting order puts each level's nodes in (tree, index) order.
  std::vector<int64_t> next(num_levels, 0);
  std::vector<Edge> edges;
  std::vector<int64_t> position;
  for (size_t t = 0; t < trees.size(); ++t) {
    const LoopTree& tree = *trees[t];
    const std::vector<int>& height = heights[t];
    position.resize(tree.nodes.size());
    for (size_t i = 0; i < tree.nodes.size(); ++i) {
      const int h = height[i];
      position[i] = next[h]++;
      std::copy(tree.nodes[i].features.begin(), tree.nodes[i].features.end(),
                forest.features.begin() + (forest.level_offsets[h] + position[i]) * width);
    }
    for (size_t i = 0; i < tree.nodes.size(); ++i) {
      for (int c : tree.nodes[i].children) {
        edges.push_back({height[i], height[c], position[c], position[i]});
      }
    }
    forest.root_level.push_back(height[0]);
    forest.root_position.push_back(position[0]);
  }

  std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.parent_level != b.parent_level ? a.parent_level < b.parent_level
                                            : a.child_level < b.child_level;
  });
  forest.edges.resize(num_levels);
  for (const Edge& e : edges) {
    std::vector<EdgeGroup>& groups = forest.edges[e.parent_level];
    if (groups.empty() || groups.back().child_level != e.child_level) {
      groups.push_back({.child_level = e.child_level, .child = {}, .parent = {}});
    }
    groups.back().child.push_back(e.child);
    groups.back().parent.push_back(e.parent);
  }
  return forest;
}

}  // namespace tessel::costmodels::treernn
