#pragma once

#include <absl/status/statusor.h>

#include "compiler/te/tensor.h"

// Softmax and log-softmax along one axis, computed stably (the row's maximum subtracted first).
namespace tessel::ops::nn {

struct SoftmaxTensors {
  te::Tensor max;     // x's shape without `axis`: the maximum along the axis
  te::Tensor exp;     // softmax only, x's shape: exp(x - max)
  te::Tensor sum;     // x's shape without `axis`: the sum of exp(x - max) along the axis
  te::Tensor output;  // x's shape
};

// softmax: exp(x - max) / sum; log_softmax: x - max - log(sum). axis may count from the end
// (-1: the last); an error names it when it is out of range.
absl::StatusOr<SoftmaxTensors> Softmax(const te::Tensor& x, int64_t axis);
absl::StatusOr<SoftmaxTensors> LogSoftmax(const te::Tensor& x, int64_t axis);

}  // namespace tessel::ops::nn
