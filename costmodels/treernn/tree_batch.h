#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "costmodels/features/feature_extractor.h"

// Many loop trees packed into one forest for level-by-level evaluation: a node's height is 0 for a
// leaf and 1 + the largest height of its children, and a TreeGRU can evaluate every node of one
// height across the whole forest at once, since all its children have smaller heights. No torch
// here: the network (tree_gru.cc) wraps these arrays in tensors.
namespace tessel::costmodels::treernn {

// One parent level's edges whose children sit at one lower level.
struct EdgeGroup {
  int child_level = 0;
  std::vector<int64_t> child;   // child's position within its level
  std::vector<int64_t> parent;  // parent's position within the parent level
};

struct PackedForest {
  int width = 0;  // features per node
  int num_trees = 0;
  // Nodes ordered by height, then by tree, then by index in the tree: level h holds the packed
  // nodes [level_offsets[h], level_offsets[h + 1]).
  std::vector<int64_t> level_offsets;  // size num_levels + 1
  std::vector<float> features;         // packed node-major, level_offsets.back() x width
  // edges[h]: the child -> parent edges of level h's nodes, grouped by the child's level in
  // increasing order (empty for h = 0).
  std::vector<std::vector<EdgeGroup>> edges;
  // Per tree: the level of its root and the root's position within that level.
  std::vector<int> root_level;
  std::vector<int64_t> root_position;

  int num_levels() const { return static_cast<int>(level_offsets.size()) - 1; }
};

// Packs the trees (each non-empty, with nodes of `width` features and children at larger indices
// than their parent, every node but the root the child of exactly one node). A tree that breaks
// these rules is an InvalidArgument naming its position in `trees` and the node.
absl::StatusOr<PackedForest> PackForest(const std::vector<const LoopTree*>& trees, int width);

}  // namespace tessel::costmodels::treernn
