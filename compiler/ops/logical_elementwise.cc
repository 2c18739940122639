// Logical signatures of the element-wise operators: the activations (relu, leaky_relu, sigmoid,
// tanh, clip) and the broadcasting binary operators (add, subtract, multiply, divide, maximum,
// minimum).
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/activation.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

// An activation of x: its extra arguments read with `r`.
using Activation =
    std::function<absl::StatusOr<te::Tensor>(const ArgReader& r, const te::Tensor& x)>;

// The signature of activation f; tests draw x from [low, high).
SignatureFn ActivationOp(Activation f, double low = -1, double high = 1) {
  return [f, low, high](const std::string& op,
                        const OpArgs& args) -> absl::StatusOr<LogicalSignature> {
    ArgReader r(op, args);
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, r.Shape("shape"));
    te::Tensor x = Placeholder(shape, "x");
    TESSEL_ASSIGN_OR_RETURN(te::Tensor out, f(r, x));
    return LogicalSignature{{SpecOf(x, "x", low, high)}, {SpecOf(out, "out")}};
  };
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

SignatureFn BinaryOp(nn::BinaryOp kind) {
  return [kind](const std::string& op, const OpArgs& args) -> absl::StatusOr<LogicalSignature> {
    ArgReader r(op, args);
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> a_shape, r.Shape("a_shape"));
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> b_shape, r.Shape("b_shape"));
    if (absl::Status s = nn::BroadcastShape(a_shape, b_shape).status(); !s.ok()) {
      return r.Error(absl::StrCat("arguments 'a_shape' ", ShapeText(a_shape), " and 'b_shape' ",
                                  ShapeText(b_shape), " do not broadcast: ", s.message()));
    }
    te::Tensor a = Placeholder(a_shape, "a");
    te::Tensor b = Placeholder(b_shape, "b");
    absl::StatusOr<te::Tensor> out = nn::Binary(kind, a, b);
    if (!out.ok()) return r.Error(std::string(out.status().message()));
    // A divisor away from zero keeps the quotients well conditioned.
    const bool divide = kind == nn::BinaryOp::kDivide;
    return LogicalSignature{
        {SpecOf(a, "a"), SpecOf(b, "b", divide ? 0.5 : -1.0, divide ? 2.0 : 1.0)},
        {SpecOf(*out, "out")}};
  };
}

}  // namespace

void AddElementwiseOps(SignatureTable& table) {
  table["relu"] =
      ActivationOp([](const ArgReader&, const te::Tensor& x) -> absl::StatusOr<te::Tensor> {
        return nn::Relu(x);
      });
  table["leaky_relu"] =
      ActivationOp([](const ArgReader& r, const te::Tensor& x) -> absl::StatusOr<te::Tensor> {
        TESSEL_ASSIGN_OR_RETURN(double alpha, r.FloatOr("alpha", 0.01));
        return nn::LeakyRelu(x, alpha);
      });
  table["sigmoid"] =
      ActivationOp([](const ArgReader&,
                      const te::Tensor& x) -> absl::StatusOr<te::Tensor> { return nn::Sigmoid(x); },
                   -8, 8);
  table["tanh"] =
      ActivationOp([](const ArgReader&,
                      const te::Tensor& x) -> absl::StatusOr<te::Tensor> { return nn::Tanh(x); },
                   -5, 5);
  table["clip"] = ActivationOp(
      [](const ArgReader& r, const te::Tensor& x) -> absl::StatusOr<te::Tensor> {
        TESSEL_ASSIGN_OR_RETURN(double lo, r.Float("min"));
        TESSEL_ASSIGN_OR_RETURN(double hi, r.Float("max"));
        if (lo > hi) return r.Error("argument 'min' must not exceed argument 'max'");
        return nn::Clip(x, lo, hi);
      },
      -2, 2);
  for (nn::BinaryOp kind :
       {nn::BinaryOp::kAdd, nn::BinaryOp::kSubtract, nn::BinaryOp::kMultiply, nn::BinaryOp::kDivide,
        nn::BinaryOp::kMaximum, nn::BinaryOp::kMinimum}) {
    table[nn::BinaryOpName(kind)] = BinaryOp(kind);
  }
}

}  // namespace tessel::ops::logical
