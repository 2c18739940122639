#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// quantize and dequantize (OPERATORS.md): symmetric, per-tensor int8 quantization with one scale
// (a float32 value v stands for the int8 q with v ~ q x scale).
//   quantize:   q = int8(clip(round(x * r), -127, 127)), r the float32 nearest 1 / scale, the
//               product in float32, round halves away from zero (ir::round);
//   dequantize: x = float32(q) * float32(scale).
// Both computes are of any shape, named after the operator; -128 is never produced, so the
// values are symmetric about zero as the accelerator's requantization keeps them.
namespace tessel::ops::nn {

// The `scale` argument: a finite number > 0. Errors (from `what`) name the key.
absl::StatusOr<double> ReadQuantScale(const std::string& what, const OpArgs& args);

// x float32 -> int8.
te::Tensor Quantize(const te::Tensor& x, double scale);
// q int8 -> float32.
te::Tensor Dequantize(const te::Tensor& q, double scale);

// The factor quantize multiplies by, as a float32: what a reference must use to agree bit for
// bit.
float QuantizeFactor(double scale);

}  // namespace tessel::ops::nn
