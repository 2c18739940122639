#pragma once

#include <absl/status/statusor.h>

#include "compiler/graph/graph.h"

// The graph rewrites Compile runs before choosing kernels (CompileOptions::optimize_graph), in
// this order:
//   1. dead code elimination (graph/passes/dead_code.h): what no output needs is not folded;
//   2. constant folding (fold_constants.h): subgraphs of constants become constants, computed by
//      the operator library's own kernels;
//   3. batch-norm folding (fold_batch_norm.h): conv -> batch_norm becomes conv with scaled
//      weights -> add of a per-channel bias, other batch_norms a multiply -> add (broadcast
//      operators, which fuse); its statistics must be constants, which step 2 may have made them;
//   4. reshape sinking (sink_reshapes.h): element-wise nodes, softmaxes and keepdims reductions
//      that read a reshape compute before it, so a matrix product and what follows it fuse
//      (exported transformers reshape around every MatMul);
//   5. layer-norm fusion (fuse_layer_norm.h): the exporter's reduce_mean, subtract, power,
//      reduce_mean, add, sqrt, divide, multiply, add become one layer_norm node (after step 4,
//      so the pattern is matched on the rows the reshapes were sunk to);
//   6. dead code elimination again: folding leaves the nodes it replaced without readers.
// Operator fusion is an analysis (fuse_ops.h), run by Compile on the result. The graph's inputs,
// outputs and the names of kept values do not change, so the result takes the same inputs and
// gives the same outputs (up to floating-point rounding: folded batch norms are rounded once).
namespace tessel::driver {

// Errors: a pass's (naming the node it could not rewrite).
absl::StatusOr<graph::Graph> OptimizeGraph(const graph::Graph& g);

}  // namespace tessel::driver
