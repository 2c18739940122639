#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/runtime/ndarray.h"

// Small graphs for tests of compiled models, together covering every graph operator, with seeded
// random constants (kept in ranges the operators want: positive variances, bit-serial values
// below 2^bits) and matching random inputs.
namespace tessel::driver::testing {

struct TestGraph {
  graph::Graph graph;
  std::vector<runtime::NDArray> inputs;  // one per graph input
};

// Seeded uniform values in [low, high) (int32, uint8: integers low .. high - 1).
runtime::NDArray RandomArray(const std::vector<int64_t>& shape, DLDataType dtype, double low,
                             double high, uint32_t seed);

// Convolutions: conv2d by each template the x86 strategy picks (Winograd, NCHWc, depthwise,
// grouped NCHW), two nodes with the same weight constant and the same task, an input read by
// several nodes; then batch_norm, relu, the four poolings, concatenate, flatten, dense with a
// bias, softmax and log_softmax. Three outputs.
absl::StatusOr<TestGraph> ConvolutionGraph();

// Element-wise operators with broadcasting, the shape operators (reshape, transpose, pad,
// layout_transform), matmul, batch_matmul, conv2d_transpose, and casts between float32,
// float64, int32 and int64 (an int32 input among the inputs).
absl::StatusOr<TestGraph> ElementwiseAndShapeGraph();

// An embedding lookup (take), two lstm_cells sharing their weights (one constant feeding two
// nodes of one task) chained through both outputs, then an rnn_cell.
absl::StatusOr<TestGraph> RecurrentGraph();

// bitserial_conv2d and bitserial_dense on uint8 inputs.
absl::StatusOr<TestGraph> BitserialGraph();

// Int8 operators: x [1, 16, 6, 6] quantized, then a requantized 3x3 conv2d_int8 with a bias and
// relu and a wrapping 1x1 strided one (the sums' low 8 bits); v [3, 50] quantized, then a
// requantized dense_int8 with a bias (18 outputs) and a wrapping one (7); each dequantized.
absl::StatusOr<TestGraph> Int8Graph();

// LSTM gates as a PyTorch export computes them, element-wise: from gate inputs i, f, g, o and
// the cell c ([2, 24] each) and a forget bias [24] (a constant),
//   c' = sigmoid(f + bias) * c + sigmoid(i) * tanh(g),   h = sigmoid(o) * tanh(c')
// with c' and h the outputs. No node has a master: two fusion groups of element-wise nodes.
absl::StatusOr<TestGraph> LstmGatesGraph();

// x [1, 16, 8, 8] -> conv2d 3x3 (16 channels) -> relu -> dense [10]: small and fast to compile.
absl::StatusOr<TestGraph> TinyGraph();

// A small ResNet to quantize for VDLA: image [1, 3, 16, 16] -> a first 3x3 convolution of 3 input
// channels (VDLA does not take it) with a batch norm and relu, two basic blocks (3x3 convolutions
// with batch norms, relus and residual adds; the second strided, with its 1x1 projection), a
// global pool, flatten and dense [10]. Six convolutions. Its input: an image in [-1, 1), seed 3
// (RandomArray).
absl::StatusOr<TestGraph> SmallResNet();

}  // namespace tessel::driver::testing
