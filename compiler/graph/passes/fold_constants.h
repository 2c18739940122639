#pragma once

#include <absl/status/statusor.h>

#include <cstdint>

#include "compiler/graph/graph.h"

// Constant folding. Takes a verified graph; returns one where every node whose inputs are all
// constants (given, or folded earlier in the same sweep, so chains of them fold) is replaced by
// constants holding its outputs, named as those outputs were. Constants that nothing reads
// afterwards are dropped; other nodes are kept as they are (dead nodes too: see dead_code.h).
//
// Values are computed by the operator library's own kernels, not by a reference: the template the
// host's strategy picks (compiler/ops/strategy.h, for this machine's `llvm` target), its untuned
// program compiled for the host and run on the logical inputs. So a folded graph computes what
// the unfolded one would when compiled, and libtorch stays out of the compiler.
//
// Size cap: a node is folded only when its outputs take at most `max_output_bytes` together.
// Folding trades run-time work for stored data, and some constant subgraphs grow (a broadcast of
// a bias to a whole feature map, a pad or a tile of a weight); the cap keeps a model's parameters
// from being blown up by them. Such a node stays in the graph and is computed at run time.
namespace tessel::graph::passes {

struct FoldConstantsOptions {
  int64_t max_output_bytes = int64_t{64} << 20;  // >= 0
};

// Errors: an option out of range (naming it), a node whose program fails to compile or run
// (naming the node; a bug in the operator library, since the graph's types were inferred from
// that same program).
absl::StatusOr<Graph> FoldConstants(const Graph& g, const FoldConstantsOptions& options = {});

}  // namespace tessel::graph::passes
