#pragma once

#include <absl/status/statusor.h>

#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/runtime/ndarray.h"

// An independent evaluation of a graph: every node computed by libtorch (TorchReference,
// reference.h, on the node's operator-library arguments), front to back. Slow and simple; the
// reference that compiled graphs and graph passes are checked against.
namespace tessel::baselines {

// The graph's outputs for these inputs (one per graph input, of its type). Errors name the input
// or the node.
absl::StatusOr<std::vector<runtime::NDArray>> EvaluateReference(
    const graph::Graph& g, const std::vector<runtime::NDArray>& inputs);

// Every value of the graph on these inputs, by value id (inputs and constants as given).
absl::StatusOr<std::vector<runtime::NDArray>> EvaluateReferenceValues(
    const graph::Graph& g, const std::vector<runtime::NDArray>& inputs);

}  // namespace tessel::baselines
