#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// Layer normalization (Ba et al. 2016; torch.nn.LayerNorm, ONNX LayerNormalization): x is
// normalized over its trailing axes [axis, rank) with the mean and the biased variance of those
// elements, then scaled by gamma and shifted by beta, which have the shape of those axes:
//   y = (x - mean) / sqrt(var + epsilon) * gamma + beta.
//
// Arguments: `shape` (of x), `axis=-1` (may count from the end), `epsilon=1e-5` (>= 0).
namespace tessel::ops::nn {

struct LayerNormAttrs {
  std::vector<int64_t> shape;
  int64_t axis = 0;  // in [0, rank)
  double epsilon = 1e-5;
  // x viewed as [groups, normalized]: the products of shape[:axis] and shape[axis:].
  int64_t groups = 1, normalized = 1;
  std::vector<int64_t> normalized_shape() const;  // shape[axis:], gamma's and beta's
};
absl::StatusOr<LayerNormAttrs> ReadLayerNormAttrs(const ArgReader& r);

struct LayerNormTensors {
  te::Tensor sum;      // x's leading axes [0, axis): the sum of each normalized group
  te::Tensor squares;  // the same shape: the sum of squared deviations from the mean
  te::Tensor mean;     // x's leading axes [0, axis): the mean of each normalized group
  te::Tensor var;      // the same shape: the biased variance, around `mean`
  te::Tensor output;   // x's shape
};

// axis may count from the end (-1: the last axis alone). Errors name the axis when out of range,
// gamma or beta when their shape is not x's trailing shape, and a negative epsilon.
absl::StatusOr<LayerNormTensors> LayerNorm(const te::Tensor& x, const te::Tensor& gamma,
                                           const te::Tensor& beta, int64_t axis, double epsilon);

}  // namespace tessel::ops::nn
