#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/te/tensor.h"

// Binary element-wise operators with numpy broadcasting: shapes are aligned at their last
// dimensions, and along each dimension the extents are equal or one of them is 1 (a missing
// leading dimension counts as 1); the result has the larger extent. One compute per call
// (compute_inline can absorb it).
namespace tessel::ops::nn {

enum class BinaryOp { kAdd, kSubtract, kMultiply, kDivide, kMaximum, kMinimum, kPower };

// Every operator, in the order of the enum.
const std::vector<BinaryOp>& AllBinaryOps();

// "add", "subtract", "multiply", "divide", "maximum", "minimum", "power" (a to the b): the
// operator names of OPERATORS.md.
const char* BinaryOpName(BinaryOp op);

// The broadcast shape of a and b, or an error quoting both shapes and the dimension that differs.
absl::StatusOr<std::vector<int64_t>> BroadcastShape(const std::vector<int64_t>& a,
                                                    const std::vector<int64_t>& b);

// The element type of an operator's operands and result, from its `dtype` argument (the text of
// ir::DataType::ToString; "float32" when absent): float32 for every operator; float64, int32 and
// int64 (ONNX's other arithmetic types) for add, subtract, multiply, maximum and minimum, and
// float64 for divide. An error names the type and the operator.
absl::StatusOr<ir::DataType> BinaryElementType(BinaryOp op, const std::string& dtype);

// a op b, broadcast. Both tensors have the same element type, one BinaryElementType allows.
absl::StatusOr<te::Tensor> Binary(BinaryOp op, const te::Tensor& a, const te::Tensor& b);

// Where an operator is worth testing: tests draw a from [a_low, a_high) and b likewise. A
// divisor away from zero keeps quotients well conditioned; power takes positive bases (a
// negative one to a fractional exponent has no real value).
struct BinaryInputRanges {
  double a_low = -1, a_high = 1, b_low = -1, b_high = 1;
};
BinaryInputRanges InputRanges(BinaryOp op);

// The operator BinaryOpName calls `name`, if any.
std::optional<BinaryOp> FindBinaryOp(const std::string& name);

// The element function of Binary: a op b on two scalars of one type. Binary applies it, and so
// does a graph compiler that fuses the operator into another's output stage (ops/output_tail.h).
ir::Expr BinaryElement(BinaryOp op, ir::Expr a, ir::Expr b);

// Where Binary reads an operand of `shape` for the result element at `out_index` (the result
// of shape `out_shape`, which `shape` broadcasts to): the trailing dimensions of out_index, 0
// where the operand's extent is 1 and the result's is not.
std::vector<ir::Expr> BroadcastIndex(const std::vector<int64_t>& shape,
                                     const std::vector<int64_t>& out_shape,
                                     const std::vector<ir::Expr>& out_index);

}  // namespace tessel::ops::nn
