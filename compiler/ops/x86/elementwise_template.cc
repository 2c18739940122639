// Element-wise templates: the activations relu, leaky_relu, sigmoid, tanh, clip ("<op>.x86") and
// the broadcasting binary operators add, subtract, multiply, divide, maximum, minimum. Each is
// one injective output (ops/injective/builders.h) scheduled by injective_schedule.h (knobs
// inner_axes, vec, unroll, parallel) over views of the tensors with their mergeable axes merged
// (prepare and finish reshape; free for a graph compiler). Flops: one per output element,
// whatever the operator (sigmoid and tanh included).
#include <absl/strings/str_cat.h>

#include "compiler/ops/injective/builders.h"
#include "compiler/ops/x86/injective_schedule.h"

namespace tessel::ops::x86 {
namespace {

Template Activation(const std::string& op, const std::string& summary, InjectiveBuilder build) {
  return MakeInjectiveTemplate(op + ".x86", op, summary, std::move(build));
}

Template Binary(nn::BinaryOp kind) {
  const std::string op = nn::BinaryOpName(kind);
  return MakeInjectiveTemplate(op + ".x86", op,
                               absl::StrCat(op, " with numpy broadcasting, vectorized"),
                               injective::BinaryBuilder(kind));
}

TESSEL_REGISTER_TEMPLATE("cpu", Activation("relu", "max(x, 0), vectorized", injective::BuildRelu));
TESSEL_REGISTER_TEMPLATE("cpu", Activation("leaky_relu", "x or alpha * x below 0, vectorized",
                                           injective::BuildLeakyRelu));
TESSEL_REGISTER_TEMPLATE("cpu", Activation("sigmoid", "1 / (1 + exp(-x)), vectorized polynomial",
                                           injective::BuildSigmoid));
TESSEL_REGISTER_TEMPLATE("cpu", Activation("tanh", "tanh(x), vectorized polynomial",
                                           injective::BuildTanh));
TESSEL_REGISTER_TEMPLATE("cpu", Activation("clip", "min(max(x, min), max), vectorized",
                                           injective::BuildClip));

TESSEL_REGISTER_TEMPLATE("cpu", Binary(nn::BinaryOp::kAdd));
TESSEL_REGISTER_TEMPLATE("cpu", Binary(nn::BinaryOp::kSubtract));
TESSEL_REGISTER_TEMPLATE("cpu", Binary(nn::BinaryOp::kMultiply));
TESSEL_REGISTER_TEMPLATE("cpu", Binary(nn::BinaryOp::kDivide));
TESSEL_REGISTER_TEMPLATE("cpu", Binary(nn::BinaryOp::kMaximum));
TESSEL_REGISTER_TEMPLATE("cpu", Binary(nn::BinaryOp::kMinimum));

}  // namespace
}  // namespace tessel::ops::x86
