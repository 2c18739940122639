#pragma once

#include <absl/status/statusor.h>

#include "compiler/graph/graph.h"

// Dead-code elimination. Takes a verified graph; returns it without the nodes and constants that
// no graph output depends on. Everything kept keeps its name, operator and attributes, and nodes
// keep their relative order. The graph's inputs all stay, used or not: they are its signature.
// Errors only when the graph does not rebuild (its names do not follow Builder's convention of
// naming a node's outputs after the node, and a kept output's name then clashes).
namespace tessel::graph::passes {

absl::StatusOr<Graph> EliminateDeadCode(const Graph& g);

}  // namespace tessel::graph::passes
