#pragma once

#include "compiler/graph/graph.h"

// What the pattern-matching passes (fold_batch_norm.h, fuse_layer_norm.h) ask of a value before
// they read its data as floats.
namespace tessel::graph::passes {

bool IsFloat32(const TensorType& t);

// A constant of element type float32: its data may be read as floats.
bool IsFloat32Constant(const Graph& g, ValueId id);

}  // namespace tessel::graph::passes
