#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/codegen/vdla/alu_chain.h"
#include "compiler/codegen/vdla/emitter.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/status_macros.h"

namespace tessel::codegen::vdla::internal {

absl::StatusOr<int64_t> Emitter::Eval(const ir::Expr& e) const {
  if (const auto* imm = e.as<ir::IntImmNode>()) return imm->value;
  if (const auto* var = e.as<ir::VarNode>()) {
    auto it = env_.find(var);
    if (it == env_.end()) return Error(absl::StrCat("variable ", var->name, " has no value"));
    return it->second;
  }
  if (const auto* cast = e.as<ir::CastNode>()) {
    if (!cast->dtype.is_int() && !cast->dtype.is_uint()) {
      return Error(absl::StrCat("not an integer: ", ir::ToString(e)));
    }
    return Eval(cast->value);
  }
  if (const auto* select = e.as<ir::SelectNode>()) {
    absl::StatusOr<int64_t> c = Eval(select->condition);
    if (!c.ok()) return c;
    return Eval(*c ? select->true_value : select->false_value);
  }
  if (const auto* no = e.as<ir::NotNode>()) {
    absl::StatusOr<int64_t> a = Eval(no->a);
    if (!a.ok()) return a;
    return int64_t{*a == 0};
  }
  return EvalBinary(e);
}

absl::StatusOr<int64_t> Emitter::EvalBinary(const ir::Expr& e) const {
  auto both = [&](const auto* node) -> absl::StatusOr<std::pair<int64_t, int64_t>> {
    absl::StatusOr<int64_t> a = Eval(node->a);
    if (!a.ok()) return a.status();
    absl::StatusOr<int64_t> b = Eval(node->b);
    if (!b.ok()) return b.status();
    return std::make_pair(*a, *b);
  };
#define VDLA_BINARY(Node, expr)                                  \
  if (const auto* node = e.as<ir::Node>()) {                     \
    absl::StatusOr<std::pair<int64_t, int64_t>> ab = both(node); \
    if (!ab.ok()) return ab.status();                            \
    const int64_t a = ab->first, b = ab->second;                 \
    return static_cast<int64_t>(expr);                           \
  }
  VDLA_BINARY(AddNode, a + b)
  VDLA_BINARY(SubNode, a - b)
  VDLA_BINARY(MulNode, a * b)
  VDLA_BINARY(MinNode, std::min(a, b))
  VDLA_BINARY(MaxNode, std::max(a, b))
  VDLA_BINARY(EQNode, a == b)
  VDLA_BINARY(NENode, a != b)
  VDLA_BINARY(LTNode, a < b)
  VDLA_BINARY(LENode, a <= b)
  VDLA_BINARY(GTNode, a > b)
  VDLA_BINARY(GENode, a >= b)
  VDLA_BINARY(AndNode, a && b)
  VDLA_BINARY(OrNode, a || b)
#undef VDLA_BINARY
  auto divide = [&](const auto* node, bool floor, bool quotient) -> absl::StatusOr<int64_t> {
    absl::StatusOr<std::pair<int64_t, int64_t>> ab = both(node);
    if (!ab.ok()) return ab.status();
    const auto [a, b] = *ab;
    if (b == 0) return Error(absl::StrCat("division by zero in ", ir::ToString(e)));
    int64_t q = a / b, r = a % b;
    if (floor && r != 0 && ((r < 0) != (b < 0))) {
      q -= 1;
      r += b;
    }
    return quotient ? q : r;
  };
  if (const auto* n = e.as<ir::DivNode>()) return divide(n, false, true);
  if (const auto* n = e.as<ir::ModNode>()) return divide(n, false, false);
  if (const auto* n = e.as<ir::FloorDivNode>()) return divide(n, true, true);
  if (const auto* n = e.as<ir::FloorModNode>()) return divide(n, true, false);
  return Error(absl::StrCat("the accelerator's program cannot compute ", ir::ToString(e)));
}

}  // namespace tessel::codegen::vdla::internal
