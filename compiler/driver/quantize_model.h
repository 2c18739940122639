#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/driver/compiled_model.h"
#include "compiler/graph/graph.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/target/target.h"

// A float model quantized for an accelerator: the graph rewrites of optimize_graph.h, then every
// convolution and dense layer the accelerator computes as conv2d_int8 or dense_int8 (its strategy
// has a template that takes the layer's shape) quantized to int8
// (graph/passes/quantize_layers.h), symmetric and per tensor, with scales calibrated on the given
// inputs: each value's largest magnitude over all of them, evaluated by libtorch
// (baselines/torch/graph_reference.h). The rest stays float32, to run on the CPU; the same
// quantized graph compiled for the CPU alone is the reference the offloaded one must equal bit for
// bit.
namespace tessel::driver {

struct QuantizedModel {
  graph::Graph graph;
  int layers = 0;     // conv2d and dense nodes of the optimized float graph
  int quantized = 0;  // of them, now conv2d_int8 or dense_int8
  // One line per layer left in float32, with why ("conv1: 3 input channels, ...").
  std::vector<std::string> kept_float;
};

// `calibration`: one set of graph inputs per entry, at least one. Errors: the accelerator
// target's, a calibration input of the wrong type (naming it), a pass's.
absl::StatusOr<QuantizedModel> QuantizeForAccelerator(
    const graph::Graph& g, const target::Target& accelerator,
    const std::vector<std::vector<runtime::NDArray>>& calibration);

// Per step of m: whether its kernel computes a layer QuantizeForAccelerator quantizes, float or
// int8 (a convolution or dense layer).
std::vector<bool> LayerSteps(const CompiledModel& m);

}  // namespace tessel::driver
