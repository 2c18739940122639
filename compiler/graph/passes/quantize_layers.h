#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

// Int8 quantization of a graph's convolutions and dense layers (symmetric, per tensor), for an
// accelerator that computes conv2d_int8 and dense_int8 (OPERATORS.md) while the rest of the graph
// stays float32.
//
// Each layer `eligible` accepts, with its bias and relu when they follow it,
//
//   conv2d(x, W) [-> add(., b)] [-> relu]        becomes
//   quantize(x, s_x) -> conv2d_int8(., W_q, b_q, shift, relu) -> dequantize(., s_y)
//   dense(x, W[, b]) [-> add(., b)] [-> relu]    becomes
//   quantize(x, s_x) -> dense_int8(., W_q, b_q, shift, relu) -> dequantize(., s_y)
//
// where, from the largest magnitudes `max_abs` calibration saw (per value of g):
//   s_x = max_abs[x] / 127, the scale of the layer's data (one quantize per value x, shared by
//       the layers that read it);
//   W_q = clip(round(W / s_w), -127, 127) with s_w = max|W| / 127;
//   the int32 sums then stand for multiples of s_a = s_x * s_w, and `shift` is the least k >= 0
//       (at most 31) with max_abs[y] / (s_a * 2^k) <= 127, y the chain's last value, so that
//       s_y = s_a * 2^k;
//   b_q = round(b / s_a) + 2^(k-1) (k > 0): the added half makes the accelerator's shift, which
//       rounds toward minus infinity, round to nearest.
// A convolution's W must be a constant [oc, ic, kh, kw] (groups 1, dilation 1) and b a constant
// [oc, 1, 1] or [1, oc, 1, 1] (as batch-norm folding leaves it); a dense layer's W a constant
// [n, k] and b a constant [n] or [1, n], its own third input or an add's (not both). The add and
// the relu must be their input's only reader, and not graph outputs, to join the chain. A scale of
// 0 (a value calibration only saw as zeros) is taken as 1. Everything else is copied as it is.
namespace tessel::graph::passes {

struct QuantizeLayersOptions {
  // Whether a conv2d or dense node (of g) is to be quantized.
  std::function<bool(const Graph& g, const Node& layer)> eligible;
};

// Errors: max_abs of another size than g's values, a node the Builder rejects (naming it).
absl::StatusOr<Graph> QuantizeLayers(const Graph& g, const std::vector<double>& max_abs,
                                     const QuantizeLayersOptions& options);

// The int8 operator a float layer becomes ("conv2d" -> "conv2d_int8", "dense" -> "dense_int8"),
// or "" for another operator.
std::string Int8OpOf(const std::string& op);

// Whether op is a layer this pass quantizes or one it makes.
bool IsQuantizableLayer(const std::string& op);

// The number of conv2d_int8 and dense_int8 nodes in g.
int CountInt8Layers(const Graph& g);

}  // namespace tessel::graph::passes
