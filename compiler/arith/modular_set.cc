#include "compiler/arith/modular_set.h"

#include <absl/strings/str_cat.h>

#include "compiler/arith/int_math.h"
#include "compiler/arith/local_scope.h"
#include "compiler/ir/op.h"

namespace tessel::arith {

using internal::Wide;
using ir::Expr;

namespace {

Wide AbsWide(Wide v) { return v < 0 ? -v : v; }

Wide GcdWide(Wide a, Wide b) {
  a = AbsWide(a);
  b = AbsWide(b);
  while (b != 0) {
    const Wide r = a % b;
    a = b;
    b = r;
  }
  return a;
}

Wide ModWide(Wide a, Wide m) {
  const Wide r = a % m;
  return r < 0 ? r + m : r;
}

// coeff * k + base from exact values; anything that does not fit int64 says nothing.
ModularSet FromWide(Wide coeff, Wide base) {
  coeff = AbsWide(coeff);
  if (coeff == 0) {
    if (base > internal::kPosInf || base < internal::kNegInf) return ModularSet::Everything();
    return ModularSet::Constant(static_cast<int64_t>(base));
  }
  if (coeff > internal::kPosInf) return ModularSet::Everything();
  return {static_cast<int64_t>(coeff), static_cast<int64_t>(ModWide(base, coeff))};
}

ModularSet Add(const ModularSet& a, const ModularSet& b) {
  return FromWide(GcdWide(a.coeff, b.coeff), Wide{a.base} + b.base);
}

ModularSet Sub(const ModularSet& a, const ModularSet& b) {
  return FromWide(GcdWide(a.coeff, b.coeff), Wide{a.base} - b.base);
}

// (c1 k1 + b1)(c2 k2 + b2) = c1 c2 k1 k2 + c1 b2 k1 + c2 b1 k2 + b1 b2.
ModularSet Mul(const ModularSet& a, const ModularSet& b) {
  const Wide c1 = a.coeff, c2 = b.coeff, b1 = a.base, b2 = b.base;
  if (AbsWide(c1 * c2) > internal::kPosInf) return ModularSet::Everything();
  return FromWide(GcdWide(GcdWide(c1 * c2, c1 * b2), c2 * b1), b1 * b2);
}

ModularSet Union(const ModularSet& a, const ModularSet& b) {
  return FromWide(GcdWide(GcdWide(a.coeff, b.coeff), Wide{a.base} - b.base), a.base);
}

ModularSet FloorDivBy(const ModularSet& a, int64_t c) {
  if (a.IsConstant()) return ModularSet::Constant(internal::FloorDiv(a.base, c));
  // c divides the coefficient: (c m k + b) / c == m k + b / c exactly.
  if (a.coeff % c == 0) return FromWide(a.coeff / c, internal::FloorDiv(a.base, c));
  return ModularSet::Everything();
}

ModularSet FloorModBy(const ModularSet& a, int64_t c) {
  if (a.coeff % c == 0) return ModularSet::Constant(internal::FloorMod(a.base, c));
  // The result differs from the dividend by a multiple of c.
  return FromWide(GcdWide(a.coeff, c), a.base);
}

class ModularEvaluator {
 public:
  ModularEvaluator(const ModularSetMap& vars, const ConstIntBoundMap& bounds)
      : vars_(vars), bounds_(bounds) {}

  ModularSet Eval(const Expr& e) {
    const ir::DataType t = e.dtype();
    if (const auto* imm = e.as<ir::IntImmNode>()) {
      if (!internal::HasExactInt64Value(t, imm->value)) return ModularSet::Everything();
      return ModularSet::Constant(imm->value);
    }
    if (const auto* var = e.as<ir::VarNode>()) {
      if (auto it = locals_.find(var); it != locals_.end()) return it->second;
      if (auto it = vars_.find(var); it != vars_.end()) return it->second;
      return ModularSet::Everything();
    }
    if (!internal::IsIndexType(t)) return ModularSet::Everything();
    switch (e.kind()) {
      case ir::NodeKind::kAdd:
        return Add(Eval(e.as<ir::AddNode>()->a), Eval(e.as<ir::AddNode>()->b));
      case ir::NodeKind::kSub:
        return Sub(Eval(e.as<ir::SubNode>()->a), Eval(e.as<ir::SubNode>()->b));
      case ir::NodeKind::kMul:
        return Mul(Eval(e.as<ir::MulNode>()->a), Eval(e.as<ir::MulNode>()->b));
      case ir::NodeKind::kFloorDiv:
        return Division(e.as<ir::FloorDivNode>()->a, e.as<ir::FloorDivNode>()->b, true, false);
      case ir::NodeKind::kFloorMod:
        return Division(e.as<ir::FloorModNode>()->a, e.as<ir::FloorModNode>()->b, true, true);
      case ir::NodeKind::kDiv:
        return Division(e.as<ir::DivNode>()->a, e.as<ir::DivNode>()->b, false, false);
      case ir::NodeKind::kMod:
        return Division(e.as<ir::ModNode>()->a, e.as<ir::ModNode>()->b, false, true);
      case ir::NodeKind::kMin:
        return Union(Eval(e.as<ir::MinNode>()->a), Eval(e.as<ir::MinNode>()->b));
      case ir::NodeKind::kMax:
        return Union(Eval(e.as<ir::MaxNode>()->a), Eval(e.as<ir::MaxNode>()->b));
      case ir::NodeKind::kSelect: {
        const auto* op = e.as<ir::SelectNode>();
        return Union(Eval(op->true_value), Eval(op->false_value));
      }
      case ir::NodeKind::kCast: {
        const auto* op = e.as<ir::CastNode>();
        const ir::DataType from = op->value.dtype();
        if (!internal::IsIndexType(from)) return ModularSet::Everything();
        if (from.bits() <= t.bits()) return Eval(op->value);
        // Narrowing keeps the value only when it fits the target.
        const ConstIntBound b = EvalConstIntBound(op->value, bounds_);
        if (b.min_value >= internal::TypeMin(t) && b.max_value <= internal::TypeMax(t)) {
          return Eval(op->value);
        }
        return ModularSet::Everything();
      }
      case ir::NodeKind::kRamp: {
        // Lane t is base + t * stride; lanes 0 and 1 already differ by the stride, and the union
        // of those two covers every lane.
        const auto* op = e.as<ir::RampNode>();
        const ModularSet base = Eval(op->base);
        return Union(base, Add(base, Eval(op->stride)));
      }
      case ir::NodeKind::kBroadcast:
        return Eval(e.as<ir::BroadcastNode>()->value);
      case ir::NodeKind::kLet: {
        const auto* op = e.as<ir::LetNode>();
        return internal::WithLocal(locals_, op->var.get(), Eval(op->value),
                                   [&] { return Eval(op->body); });
      }
      case ir::NodeKind::kCall:
        return EvalCall(e.as<ir::CallNode>());
      default:
        return ModularSet::Everything();
    }
  }

 private:
  ModularSet Division(const Expr& a, const Expr& b, bool floor, bool mod) {
    const ModularSet divisor = Eval(b);
    if (!divisor.IsConstant() || divisor.base == 0) return ModularSet::Everything();
    const int64_t c = divisor.base;
    const ModularSet dividend = Eval(a);
    if (!floor) {
      if (dividend.IsConstant()) {
        return ModularSet::Constant(mod ? internal::TruncMod(dividend.base, c)
                                        : internal::TruncDiv(dividend.base, c));
      }
      // For a non-negative dividend, truncation is floor division by |c| (up to the quotient's
      // sign, which the division rule below handles for c > 0 only).
      const bool non_negative = EvalConstIntBound(a, bounds_).min_value >= 0;
      if (mod) {
        if (non_negative && c != internal::kNegInf) return FloorModBy(dividend, c < 0 ? -c : c);
        return FromWide(GcdWide(dividend.coeff, c), dividend.base);
      }
      if (non_negative && c > 0) return FloorDivBy(dividend, c);
      return ModularSet::Everything();
    }
    return mod ? FloorModBy(dividend, c) : FloorDivBy(dividend, c);
  }

  ModularSet EvalCall(const ir::CallNode* op) {
    switch (op->op) {
      case ir::Intrinsic::kIfThenElse:
        return Union(Eval(op->args[1]), Eval(op->args[2]));
      case ir::Intrinsic::kShiftLeft: {
        const int64_t* s = ir::AsConstInt(op->args[1]);
        if (!s || *s < 0 || *s >= op->dtype.bits() || *s >= 63) return ModularSet::Everything();
        return Mul(Eval(op->args[0]), ModularSet::Constant(int64_t{1} << *s));
      }
      case ir::Intrinsic::kBitwiseAnd: {
        // x & (2^n - 1) is floormod(x, 2^n) in two's complement.
        const int64_t* m = ir::AsConstInt(op->args[1]);
        if (!m || *m < 0 || *m == internal::kPosInf || ((*m + 1) & *m) != 0) {
          return ModularSet::Everything();
        }
        return FloorModBy(Eval(op->args[0]), *m + 1);
      }
      default:
        return ModularSet::Everything();
    }
  }

  const ModularSetMap& vars_;
  const ConstIntBoundMap& bounds_;
  ModularSetMap locals_;  // Let-bound variables in scope
};

}  // namespace

ModularSet ModularSet::Make(int64_t coeff, int64_t base) { return FromWide(coeff, base); }

bool ModularSet::Contains(int64_t v) const {
  if (coeff == 0) return v == base;
  return ModWide(Wide{v} - base, coeff) == 0;
}

std::string ModularSet::ToString() const {
  if (coeff == 0) return absl::StrCat(base);
  const std::string k = coeff == 1 ? "k" : absl::StrCat(coeff, "k");
  return base == 0 ? k : absl::StrCat(k, "+", base);
}

ModularSet EvalModularSet(const Expr& e, const ModularSetMap& vars,
                          const ConstIntBoundMap& bounds) {
  return ModularEvaluator(vars, bounds).Eval(e);
}

}  // namespace tessel::arith
