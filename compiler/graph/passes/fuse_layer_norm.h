#pragma once

#include <absl/status/statusor.h>

#include "compiler/graph/graph.h"

// Layer normalization as exporters decompose it (torch.onnx writes nn.LayerNorm so below opset
// 17), recognised and made one layer_norm node, one kernel instead of seven:
//
//   m = reduce_mean(x, axes, keepdims)     axes: the trailing axes [a, rank), keepdims true
//   d = subtract(x, m)
//   p = multiply(d, d) | power(d, 2)
//   v = reduce_mean(p, axes, keepdims)
//   s = sqrt(add(v, epsilon))              epsilon: a one-element constant, either operand
//   y = divide(d, s)
//   [y = multiply(y, gamma)]               gamma, beta: float32 constants that broadcast along
//   [y = add(y, beta)]                     the normalized axes only (either operand)
//
// becomes layer_norm(x, gamma, beta) {axis: a, epsilon} (gamma ones and beta zeros where the
// graph has none), named as the last node it replaces so its value keeps its name. Every
// intermediate must be read only by the next step of the pattern (d by p and y) and be no graph
// output; x must be float32. What does not match is left as it is. The result computes the same
// function up to rounding (the normalization is one kernel's arithmetic, not seven nodes').
namespace tessel::graph::passes {

absl::StatusOr<Graph> FuseLayerNorm(const Graph& g);

}  // namespace tessel::graph::passes
