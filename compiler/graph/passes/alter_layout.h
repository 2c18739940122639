#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <optional>

#include "compiler/graph/graph.h"
#include "compiler/graph/node_layout.h"

// Layout alteration: convolutions compute in the blocked layouts their kernels want (NCHW[x]c,
// node_layout.h), values between them stay blocked, and layout_transform nodes convert only at
// the boundaries.
//
// `choose` gives, for a node whose operator takes blocked data (OpDef::blocked_data) and that has
// no layout yet, the layout its kernel computes in (the driver asks the node's template for the
// blocks of its tuned or fallback config); nullopt keeps it NCHW. It is also told the block its
// data input is held in at that point (0: NCHW), so a kernel free to read that block can choose
// it and save a transform. Nodes are visited front to back:
//   - a chosen node reads its data input in its in_block and stores its output in its out_block;
//   - an element-wise or broadcast node (relu, sigmoid, tanh, leaky_relu, clip, add, subtract,
//     multiply, divide, maximum, minimum) with a 4-d output, one of whose inputs of the output's
//     type is held blocked, computes in that block when every input can be read so: 4-d inputs
//     varying along channels and space are converted to the block, per-channel ones ([c, 1, 1],
//     [1, c, 1, 1]) and ones constant along channels ([w], [h, w], ...) are reshaped to
//     broadcast onto the blocked output (constants rewritten here, other values by a reshape
//     node: the bytes are the same), single elements kept; a bias add, a residual add and an
//     activation between two convolutions so stay blocked and fuse into the first one's output
//     stage;
//   - every other node reads its inputs in the layout they have in `g`;
//   - graph outputs are given in the layout they have in `g`.
// A value is converted to a layout once (every reader shares the transform) and always from the
// layout it is held in, so the pass never puts two transforms in a row. layout_transform nodes
// already in `g` between NCHW and NCHW{b}c are not kept as nodes but as a change of the held
// layout, so adjacent ones compose, and cancel when they compose to nothing.
//
// Names: a node keeps its name, except a chosen node whose blocked output is a graph output (it
// becomes "<name>_nchw{b}c"; the transform back to NCHW takes its name, so outputs keep theirs).
// Errors: a choice for an operator without blocked data, or with a block not dividing the
// channels (naming the node).
namespace tessel::graph::passes {

using LayoutChooser =
    std::function<std::optional<NodeLayout>(const Graph& g, const Node& node, int64_t data_block)>;

absl::StatusOr<Graph> AlterLayout(const Graph& g, const LayoutChooser& choose);

// The number of layout_transform nodes in g (for reports and tests).
int CountLayoutTransforms(const Graph& g);

}  // namespace tessel::graph::passes
