#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <string_view>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// The element-wise operators of one float input, written once: each is an element function of
// one scalar, its attributes read from the operator's arguments. The logical signatures, the
// injective computes the templates schedule, the graph's operator table and the output tails a
// graph compiler fuses into convolutions all read this table, so they agree by construction.
// OPERATORS.md lists the operators and their attributes.
namespace tessel::ops::nn {

using ElementFn = std::function<ir::Expr(ir::Expr)>;

struct UnaryOp {
  const char* name;  // the graph's operator name, e.g. "elu"
  // The element function with the operator's attributes read by `args` (whose errors name the
  // operator and the attribute).
  std::function<absl::StatusOr<ElementFn>(const ArgReader& args)> element;
  // Where the operator is worth testing: tests draw inputs from [low, high) (log and sqrt from
  // positive numbers, tanh where it is not yet flat).
  double low = -1, high = 1;
};

// Every operator of the table, in a fixed order.
const std::vector<UnaryOp>& UnaryOps();

// The operator called `name`, or nullptr.
const UnaryOp* FindUnaryOp(std::string_view name);

// The operator applied element by element: a compute of x's shape named after the operator.
te::Tensor ApplyUnary(const UnaryOp& op, const ElementFn& element, const te::Tensor& x);

// erf(v) for a float scalar, from exp and a rational term (Abramowitz and Stegun 7.1.26:
// absolute error below 1.5e-7), so every backend has it without a math library call.
ir::Expr ErfElement(ir::Expr v);

}  // namespace tessel::ops::nn
