#pragma once

#include <absl/status/statusor.h>

#include <cstdint>

#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// Local response normalization across channels (AlexNet's; ONNX LRN) of NCHW data:
//   out[n, c, h, w] = x[n, c, h, w] / (bias + alpha / size * S)^beta,
//   S = sum of x[n, c', h, w]^2 over c' in [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]
// (channels outside [0, C) count as zero). Arguments: `n c h w`, `size` (>= 1), `alpha=1e-4`,
// `beta=0.75`, `bias=1`.
namespace tessel::ops::nn {

struct LrnAttrs {
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t size = 1;
  double alpha = 1e-4, beta = 0.75, bias = 1;
};
absl::StatusOr<LrnAttrs> ReadLrnAttrs(const ArgReader& r);

struct LrnTensors {
  te::Tensor square_sum;  // S, NCHW
  te::Tensor output;      // NCHW
};
LrnTensors Lrn(const te::Tensor& x, const LrnAttrs& a);

}  // namespace tessel::ops::nn
