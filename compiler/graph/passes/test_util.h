#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/builder.h"
#include "compiler/graph/graph.h"
#include "compiler/runtime/ndarray.h"

// Shared by the pass tests: seeded data, a ResNet-like block, and the check that a pass kept a
// graph's meaning (both graphs evaluated by libtorch, reference_eval.h, on the same inputs).
namespace tessel::graph::passes::testing {

// float32, uniform in [low, high).
runtime::NDArray RandomArray(std::vector<int64_t> shape, uint32_t seed, float low = -1,
                             float high = 1);

// Adds a batch_norm over `x` (c channels) with seeded constant statistics (var in [0.5, 1.5)).
ValueId AddBatchNorm(Builder& b, ValueId x, int64_t c, const std::string& name, uint32_t seed);

// x [1, c, 8, 8] -> conv1 (3x3, pad 1; + bias add [c, 1, 1] when conv_bias) -> bn1 -> relu1
//   -> conv2 -> bn2 -> add(., x) "residual" -> relu2 (output); `blocks` of them in a row
// (block k's node names end in "_k" after the first: conv1_1, ...).
Graph ResNetBlocks(int64_t c, int blocks, bool conv_bias, uint32_t seed);

// A seeded random DAG of about num_nodes nodes of every fusion pattern on [1, c] values
// (element-wise, broadcast against constants or same-shape values, pad, concatenate, reshape,
// dense, softmax), where values are read by several nodes and some are dead or graph outputs.
Graph RandomDag(uint32_t seed, int num_nodes);

// The node operators, in order.
std::vector<std::string> Ops(const Graph& g);
int CountOp(const Graph& g, const std::string& op);

// Evaluates both graphs (same input types) with libtorch on seeded inputs and expects every
// output equal within atol + rtol * |before|.
void ExpectSameOutputs(const Graph& before, const Graph& after, uint32_t seed,
                       double tolerance = 1e-4);

}  // namespace tessel::graph::passes::testing
