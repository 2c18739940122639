#pragma once

#include <absl/status/status.h>

#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/runtime/ndarray.h"

// Batch-norm running statistics from data, for networks with random weights: without them a
// batch_norm does not normalize, and a ResNet's residual sums grow block after block.
namespace tessel::workloads::networks {

// Evaluates g node by node on `inputs` (libtorch, as baselines::EvaluateReference) and, before each
// batch_norm, sets its running_mean and running_var constants (inputs 3 and 4) to the
// per-channel mean and (population) variance of its data input over batch, height and width, so
// every batch_norm's output has per-channel mean beta and standard deviation about gamma on this
// input. One pass: later layers see the calibrated earlier ones. Each statistics constant must
// feed only its batch_norm (an error names it otherwise); the constants get fresh arrays.
absl::Status CalibrateBatchNorm(graph::Graph& g, const std::vector<runtime::NDArray>& inputs);

}  // namespace tessel::workloads::networks
