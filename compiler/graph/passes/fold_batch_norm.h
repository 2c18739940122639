#pragma once

#include <absl/status/statusor.h>

#include "compiler/graph/graph.h"

// Batch-norm folding (inference). Takes a verified graph; returns one without batch_norm nodes
// whose statistics (gamma, beta, mean, var) are constants. With s = gamma / sqrt(var + epsilon):
//
//   conv2d(x, W) [-> add(., b)] -> batch_norm     becomes   conv2d(x, W * s) -> add(., b')
//     where W is a constant, b an optional constant of shape [C, 1, 1] or [1, C, 1, 1] (either
//     operand of the add), b' = (b - mean) * s + beta as [C, 1, 1], and each intermediate value
//     has the next node as its only reader and is no graph output; W's output channels are
//     scaled, so any groups fold.
//   any other batch_norm                          becomes   multiply(x, s) -> add(., beta - mean *
//   s)
//     with s and the shift as [C, 1, 1] constants: broadcast operators, which fuse (fuse_ops.h).
//
// The add that replaces a batch_norm takes its name, so the value keeps its name; the new
// constants are named after the batch_norm ("<bn>.weight", "<bn>.bias", "<bn>.scale",
// "<bn>.shift"). Folding is done in double precision, rounded once to float32. Constants nothing
// reads afterwards (the old weight, the statistics) are dropped.
//
// dense is not matched: batch_norm takes NCHW data, so a dense output reaches one only through a
// reshape, and the standalone rule applies there.
namespace tessel::graph::passes {

absl::StatusOr<Graph> FoldBatchNorm(const Graph& g);

}  // namespace tessel::graph::passes
