#pragma once

#include <absl/status/statusor.h>

#include "compiler/graph/graph.h"

// Moves reshapes below the element-wise operators that read them, so that an operator with an
// output stage (dense, matmul, batch_matmul) and the element-wise nodes after it meet without a
// reshape between them and fuse (fuse_ops.h). Models exported from PyTorch keep activations
// [N, S, H] and reshape them to [N S, H] around each matrix product (MatMul of a 3-D tensor by a
// 2-D weight imports as reshape, matmul, reshape); the bias add, residual add, GELU and layer
// norm that follow then compute on the [N S, H] rows instead, with one reshape at the end.
//
// A reshape from B to S "keeps" the last t axes when S and B end in the same t extents (the
// leading axes only merge or split). A node over values of shape S, where some operand is such a
// reshape of a value of shape B, is computed on B instead, and its result reshaped to S, when
// every operand can be read in B's frame:
//   - a reshape of a value of shape B[:-t] + V[-t:] to V, with V[:-t] == S[:-t]: its input;
//   - any other value whose extents before the last t axes are all 1: it with those axes
//     dropped (a constant re-laid, else a reshape node);
// and the node is an element-wise operator (nn/unary.h, the binary operators), a softmax or
// log_softmax over an axis among the last t, or a reduction with keepdims over axes among them.
// Reshape chains collapse into one, and a reshape to its input's shape disappears. The result
// computes the same values (the same operators on the same elements); a reshape nothing reads
// any more is gone.
namespace tessel::graph::passes {

absl::StatusOr<Graph> SinkReshapes(const Graph& g);

}  // namespace tessel::graph::passes
