#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/te/tensor.h"

// Binary element-wise operators with numpy broadcasting: shapes are aligned at their last
// dimensions, and along each dimension the extents are equal or one of them is 1 (a missing
// leading dimension counts as 1); the result has the larger extent. One compute per call
// (compute_inline can absorb it).
namespace tessel::ops::nn {

enum class BinaryOp { kAdd, kSubtract, kMultiply, kDivide, kMaximum, kMinimum };

// "add", "subtract", "multiply", "divide", "maximum", "minimum": the operator names of
// OPERATORS.md.
const char* BinaryOpName(BinaryOp op);

// The broadcast shape of a and b, or an error quoting both shapes and the dimension that differs.
absl::StatusOr<std::vector<int64_t>> BroadcastShape(const std::vector<int64_t>& a,
                                                    const std::vector<int64_t>& b);

// a op b, broadcast. Both tensors have the same element type.
absl::StatusOr<te::Tensor> Binary(BinaryOp op, const te::Tensor& a, const te::Tensor& b);

}  // namespace tessel::ops::nn
