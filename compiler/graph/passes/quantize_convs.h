#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <vector>

#include "compiler/graph/graph.h"

// Int8 quantization of a graph's convolutions (symmetric, per tensor), for an accelerator that
// computes conv2d_int8 (OPERATORS.md) while the rest of the graph stays float32.
//
// Each convolution `eligible` accepts, with its bias and relu when they follow it,
//
//   conv2d(x, W) [-> add(., b)] [-> relu]        becomes
//   quantize(x, s_x) -> conv2d_int8(., W_q, b_q, shift, relu) -> dequantize(., s_y)
//
// where, from the largest magnitudes `max_abs` calibration saw (per value of g):
//   s_x = max_abs[x] / 127, the scale of the convolution's data (one quantize per value x, shared
//       by the convolutions that read it);
//   W_q = clip(round(W / s_w), -127, 127) with s_w = max|W| / 127;
//   the int32 sums then stand for multiples of s_a = s_x * s_w, and `shift` is the least k >= 0
//       (at most 31) with max_abs[y] / (s_a * 2^k) <= 127, y the chain's last value, so that
//       s_y = s_a * 2^k;
//   b_q = round(b / s_a) + 2^(k-1) (k > 0): the added half makes the accelerator's shift, which
//       rounds toward minus infinity, round to nearest.
// W must be a constant [oc, ic, kh, kw] (groups 1, dilation 1) and b a constant [oc, 1, 1] or
// [1, oc, 1, 1] (as batch-norm folding leaves it); the add and the relu must be their input's
// only reader, and not graph outputs, to join the chain. A scale of 0 (a value calibration only
// saw as zeros) is taken as 1. Everything else is copied as it is.
namespace tessel::graph::passes {

struct QuantizeConvsOptions {
  // Whether a conv2d node (of g) is to be quantized.
  std::function<bool(const Graph& g, const Node& conv)> eligible;
};

// Errors: max_abs of another size than g's values, a node the Builder rejects (naming it).
absl::StatusOr<Graph> QuantizeConvs(const Graph& g, const std::vector<double>& max_abs,
                                    const QuantizeConvsOptions& options);

// The number of conv2d_int8 nodes in g.
int CountInt8Convs(const Graph& g);

}  // namespace tessel::graph::passes
