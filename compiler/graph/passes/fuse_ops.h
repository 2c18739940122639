#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/op_registry.h"

// Operator fusion (the paper's Sec. 3), as an analysis: which nodes compile into one kernel. The
// graph itself is not changed; the driver compiles each group with its master's template and the
// other nodes inlined.
//
// Rules, by OpPattern (op_registry.h):
//   - an element-wise or broadcast node fuses into the group of a later node that reads it through
//     element-wise, broadcast or injective nodes only: an injective or element-wise group, a
//     reduction, or a complex node's tail (it is then computed where it is read). A complex node
//     never takes a producer of its own inputs;
//   - injective nodes (reshape, pad, transpose, concatenate) fuse with injective and element-wise
//     readers;
//   - a complex-out-fusable node (conv2d, dense, pooling) takes element-wise and broadcast
//     readers into its output (conv -> bias add -> relu -> residual add: one kernel), but only
//     when its output reaches them element by element (an edge is element-wise when the reader
//     is element-wise, or broadcast with that input already of the output's shape);
//   - opaque nodes (softmax, rnn cells, bit-serial operators) are groups of their own.
// A group therefore has at most one master: its complex-out-fusable, reduction or opaque node.
//
// Decisions are made on the post-dominator tree, as TVM's FuseOps does: a node n fuses only into
// the group of its immediate post-dominator d (the first node every path from n to the graph's
// outputs passes), together with every node on the paths between them, and only when each of
// those nodes allows it by the rules above. So a value read by two nodes fuses only where those
// readers meet again, and every value made inside a group except its last node's is read only
// inside it. A node with an output that is a graph output, or that nothing reads, has no
// post-dominator: later nodes may fuse into its group, it fuses into none. Complex-out-fusable
// nodes fuse first (phase 0), injective ones after (phase 1), so a conv keeps its tail.
// A fusion is skipped when the merged group would have more than max_group_size nodes.
namespace tessel::graph::passes {

struct FuseOptions {
  // false: every node is its own group (the paper's "fusion off", Fig. 4's baseline).
  bool enabled = true;
  // The most nodes one group may hold; >= 1.
  int max_group_size = 256;
};

struct FusionGroup {
  std::vector<int> nodes;  // node indices, increasing (a topological order)
  // The node whose template computes the group: its complex-out-fusable, reduction or opaque
  // node; -1 when all its nodes are element-wise, broadcast or injective.
  int master = -1;
  OpPattern pattern = OpPattern::kElemWise;  // the largest of its nodes' patterns
  // Values read by its nodes and made outside it (inputs, constants, other groups' outputs), in
  // order of first use, once each.
  std::vector<ValueId> inputs;
  // Values made by its nodes that something outside it needs: read by a node of another group,
  // a graph output, or read by nothing (the group's kernel still writes it).
  std::vector<ValueId> outputs;
};

struct FusionPlan {
  // In a topological order: a group's inputs come from earlier groups.
  std::vector<FusionGroup> groups;
  std::vector<int> group_of;  // per node, the index of its group
};

// Errors: an option out of range, naming it.
absl::StatusOr<FusionPlan> FuseOps(const Graph& g, const FuseOptions& options = {});

// Sets every group's inputs and outputs (as FusionGroup defines them) from its nodes and
// plan.group_of; for plans whose groups were formed or split elsewhere (the driver's kernels).
void FillGroupInputsAndOutputs(const Graph& g, FusionPlan& plan);

// Whether plan is a fusion plan of g: each node in exactly one group, nodes and groups in
// topological order, inputs and outputs as defined above, at most one master, which is the
// group's only complex-out-fusable, reduction or opaque node, and opaque nodes alone. The error
// names the group.
absl::Status CheckFusionPlan(const Graph& g, const FusionPlan& plan);

// One line per group: its node names, the master marked with '*' ("conv1* bn1 relu1").
std::string FusionPlanToText(const Graph& g, const FusionPlan& plan);

}  // namespace tessel::graph::passes
