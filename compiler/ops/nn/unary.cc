#include "compiler/ops/nn/unary.h"

#include <cmath>
#include <string>
#include <utility>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/activation.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {
namespace {

ir::Expr Const(const ir::Expr& like, double value) { return ir::FloatImm(like.dtype(), value); }

// min(max(v, 0), 1).
ir::Expr Saturate(ir::Expr v) {
  const ir::Expr zero = Const(v, 0), one = Const(v, 1);
  return ir::min(ir::max(std::move(v), zero), one);
}

// alpha * (exp(v) - 1) below zero, v above: elu, and selu before its scale.
ir::Expr EluElement(const ir::Expr& v, double alpha) {
  return ir::select(v >= Const(v, 0), v, Const(v, alpha) * (ir::exp(v) - Const(v, 1)));
}

// An operator without attributes.
UnaryOp Plain(const char* name, ElementFn f, double low = -1, double high = 1) {
  return UnaryOp{
      .name = name,
      .element = [f = std::move(f)](const ArgReader&) -> absl::StatusOr<ElementFn> { return f; },
      .low = low,
      .high = high};
}

std::vector<UnaryOp> MakeTable() {
  std::vector<UnaryOp> ops = {
      Plain("relu", ReluElement),
      {.name = "leaky_relu",
       .element = [](const ArgReader& r) -> absl::StatusOr<ElementFn> {
         TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 0.01));
         return ElementFn([alpha](ir::Expr v) { return LeakyReluElement(std::move(v), alpha); });
       }},
      Plain("sigmoid", SigmoidElement, -8, 8),
      Plain("tanh", TanhElement, -5, 5),
      {.name = "clip",
       .element = [](const ArgReader& r) -> absl::StatusOr<ElementFn> {
         TESSEL_ASSIGN_OR_RETURN(const double lo, r.Float("min"));
         TESSEL_ASSIGN_OR_RETURN(const double hi, r.Float("max"));
         if (lo > hi) return r.Error("argument 'min' must not exceed argument 'max'");
         return ElementFn([lo, hi](ir::Expr v) { return ClipElement(std::move(v), lo, hi); });
       },
       .low = -2,
       .high = 2},
      Plain(
          "exp", [](ir::Expr v) { return ir::exp(std::move(v)); }, -4, 4),
      Plain(
          "log", [](ir::Expr v) { return ir::log(std::move(v)); }, 0.05, 4),
      Plain(
          "sqrt", [](ir::Expr v) { return ir::sqrt(std::move(v)); }, 0, 4),
      Plain(
          "reciprocal", [](ir::Expr v) { return Const(v, 1) / v; }, 0.5, 2),
      Plain("abs", [](ir::Expr v) { return ir::fabs(std::move(v)); }),
      Plain("negative", [](ir::Expr v) { return Const(v, 0) - v; }),
      Plain(
          "floor", [](ir::Expr v) { return ir::floor(std::move(v)); }, -4, 4),
      Plain(
          "ceil", [](ir::Expr v) { return ir::ceil(std::move(v)); }, -4, 4),
      Plain("erf", ErfElement, -3, 3),
      {.name = "elu",
       .element = [](const ArgReader& r) -> absl::StatusOr<ElementFn> {
         TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 1.0));
         return ElementFn([alpha](ir::Expr v) { return EluElement(v, alpha); });
       },
       .low = -3,
       .high = 3},
      {.name = "selu",
       .element = [](const ArgReader& r) -> absl::StatusOr<ElementFn> {
         // ONNX's defaults, float32 renderings of the self-normalizing constants.
         TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 1.67326319217681884765625));
         TESSEL_ASSIGN_OR_RETURN(const double gamma, r.FloatOr("gamma", 1.05070102214813232421875));
         return ElementFn(
             [alpha, gamma](ir::Expr v) { return Const(v, gamma) * EluElement(v, alpha); });
       },
       .low = -3,
       .high = 3},
      // log(1 + exp(v)) = max(v, 0) + log(1 + exp(-|v|)): no overflow for large v.
      Plain(
          "softplus",
          [](ir::Expr v) {
            return ir::max(v, Const(v, 0)) +
                   ir::log(Const(v, 1) + ir::exp(Const(v, 0) - ir::fabs(v)));
          },
          -4, 4),
      Plain(
          "softsign", [](ir::Expr v) { return v / (Const(v, 1) + ir::fabs(v)); }, -4, 4),
      {.name = "hard_sigmoid",
       .element = [](const ArgReader& r) -> absl::StatusOr<ElementFn> {
         TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 0.2));
         TESSEL_ASSIGN_OR_RETURN(const double beta, r.FloatOr("beta", 0.5));
         return ElementFn(
             [alpha, beta](ir::Expr v) { return Saturate(Const(v, alpha) * v + Const(v, beta)); });
       },
       .low = -4,
       .high = 4},
      Plain(
          "hard_swish",
          [](ir::Expr v) { return v * Saturate(v * Const(v, 1.0 / 6) + Const(v, 0.5)); }, -5, 5),
      {.name = "gelu",
       .element = [](const ArgReader& r) -> absl::StatusOr<ElementFn> {
         // (A StatusOr rather than TESSEL_ASSIGN_OR_RETURN: GCC 12 warns of a string moved out of
         // the macro's temporary as maybe uninitialized.)
         const absl::StatusOr<std::string> approximate = r.StringOr("approximate", "none");
         if (!approximate.ok()) return approximate.status();
         if (*approximate == "none") {
           return ElementFn([](ir::Expr v) {
             return Const(v, 0.5) * v *
                    (Const(v, 1) + ErfElement(v * Const(v, 1 / std::sqrt(2.0))));
           });
         }
         if (*approximate == "tanh") {
           return ElementFn([](ir::Expr v) {
             const ir::Expr inner =
                 Const(v, std::sqrt(2 / M_PI)) * (v + Const(v, 0.044715) * v * v * v);
             return Const(v, 0.5) * v * (Const(v, 1) + ir::tanh(inner));
           });
         }
         return r.Error("argument 'approximate' must be \"none\" or \"tanh\", got \"" +
                        *approximate + "\"");
       },
       .low = -3,
       .high = 3},
      {.name = "thresholded_relu",
       .element = [](const ArgReader& r) -> absl::StatusOr<ElementFn> {
         TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 1.0));
         return ElementFn(
             [alpha](ir::Expr v) { return ir::select(v > Const(v, alpha), v, Const(v, 0)); });
       },
       .low = -3,
       .high = 3},
  };
  return ops;
}

}  // namespace

ir::Expr ErfElement(ir::Expr v) {
  // erf(|v|) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-v^2), t = 1 / (1 + p |v|);
  // erf is odd.
  constexpr double kP = 0.3275911;
  constexpr double kA[] = {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429};
  const ir::Expr a = ir::fabs(v);
  const ir::Expr t = Const(v, 1) / (Const(v, 1) + Const(v, kP) * a);
  ir::Expr poly = Const(v, kA[4]);
  for (int i = 3; i >= 0; --i) poly = Const(v, kA[i]) + t * poly;
  const ir::Expr magnitude = Const(v, 1) - t * poly * ir::exp(Const(v, 0) - v * v);
  return ir::select(v >= Const(v, 0), magnitude, Const(v, 0) - magnitude);
}

const std::vector<UnaryOp>& UnaryOps() {
  static const auto* table = new std::vector<UnaryOp>(MakeTable());
  return *table;
}

const UnaryOp* FindUnaryOp(std::string_view name) {
  for (const UnaryOp& op : UnaryOps()) {
    if (name == op.name) return &op;
  }
  return nullptr;
}

te::Tensor ApplyUnary(const UnaryOp& op, const ElementFn& element, const te::Tensor& x) {
  return te::compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) {
        return element(x(std::vector<ir::Expr>(i.begin(), i.end())));
      },
      op.name);
}

}  // namespace tessel::ops::nn
