#pragma once

#include <absl/status/statusor.h>

#include "compiler/te/tensor.h"

// Batch normalization at inference: running statistics, no update.
namespace tessel::ops::nn {

struct BatchNormTensors {
  te::Tensor scale;   // [C]: gamma / sqrt(var + epsilon)
  te::Tensor shift;   // [C]: beta - mean * scale
  te::Tensor output;  // data * scale[c] + shift[c], element-wise
};

// y = (x - mean[c]) / sqrt(var[c] + epsilon) * gamma[c] + beta[c] for data of any rank >= 2 with
// channels on `axis` (1 for NCHW), folded into a per-channel scale and shift so that the
// per-element work is one multiply-add; schedules compute the two small stages once and inline
// or vectorize the output. gamma, beta, mean and var are [C]. Errors name the mismatching input.
absl::StatusOr<BatchNormTensors> BatchNormInference(const te::Tensor& data, const te::Tensor& gamma,
                                                    const te::Tensor& beta, const te::Tensor& mean,
                                                    const te::Tensor& var, double epsilon,
                                                    int axis = 1);

}  // namespace tessel::ops::nn
