#include "compiler/arith/const_int_bound.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <initializer_list>

#include "compiler/arith/int_math.h"
#include "compiler/arith/local_scope.h"
#include "compiler/ir/op.h"

namespace tessel::arith {

static_assert(ConstIntBound::kPosInf == internal::kPosInf);
static_assert(ConstIntBound::kNegInf == internal::kNegInf);

using internal::BoundAdd;
using internal::BoundMul;
using internal::BoundNeg;
using internal::BoundSub;
using internal::IsInf;
using internal::kNegInf;
using internal::kPosInf;
using ir::Expr;

ConstIntBound ConstIntBound::OfType(ir::DataType dtype) {
  if (!internal::IsIntegerLike(dtype)) return Everything();
  return {internal::TypeMin(dtype), internal::TypeMax(dtype)};
}

std::string ConstIntBound::ToString() const {
  auto end = [](int64_t v) -> std::string {
    if (v == kPosInf) return "+inf";
    if (v == kNegInf) return "-inf";
    return absl::StrCat(v);
  };
  return absl::StrCat("[", end(min_value), ", ", end(max_value), "]");
}

namespace {

using Bound = ConstIntBound;

Bound Union(const Bound& a, const Bound& b) {
  return {std::min(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
}

Bound AddBounds(const Bound& a, const Bound& b) {
  return {internal::LowAdd(a.min_value, b.min_value), internal::HighAdd(a.max_value, b.max_value)};
}

Bound SubBounds(const Bound& a, const Bound& b) {
  return {internal::LowAdd(a.min_value, BoundNeg(b.max_value)),
          internal::HighAdd(a.max_value, BoundNeg(b.min_value))};
}

Bound MulBounds(const Bound& a, const Bound& b) {
  const int64_t p[] = {BoundMul(a.min_value, b.min_value), BoundMul(a.min_value, b.max_value),
                       BoundMul(a.max_value, b.min_value), BoundMul(a.max_value, b.max_value)};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

// x / y rounded down (floor) or toward zero (trunc), where either may be infinite and y != 0.
int64_t DivEnd(int64_t x, int64_t y, bool floor) {
  if (IsInf(y)) {
    if (IsInf(x)) return ((x < 0) != (y < 0)) ? kNegInf : kPosInf;
    if (!floor || x == 0 || ((x < 0) == (y < 0))) return 0;
    return -1;
  }
  if (IsInf(x)) return ((x < 0) != (y < 0)) ? kNegInf : kPosInf;
  return floor ? internal::FloorDiv(x, y) : internal::TruncDiv(x, y);
}

// Division by a divisor interval that excludes zero: the quotient is monotone in each operand, so
// its extremes lie at the corners.
Bound DivBySignedBounds(const Bound& a, const Bound& b, bool floor) {
  const int64_t p[] = {
      DivEnd(a.min_value, b.min_value, floor), DivEnd(a.min_value, b.max_value, floor),
      DivEnd(a.max_value, b.min_value, floor), DivEnd(a.max_value, b.max_value, floor)};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

// Splits a divisor interval into its negative and positive parts (zero is never a divisor).
Bound DivBounds(const Bound& a, const Bound& b, bool floor) {
  const bool has_negative = b.min_value<0, has_positive = b.max_value> 0;
  if (!has_negative && !has_positive) return Bound::Everything();  // only division by zero
  Bound result;
  bool first = true;
  if (has_negative) {
    result = DivBySignedBounds(a, {b.min_value, std::min<int64_t>(b.max_value, -1)}, floor);
    first = false;
  }
  if (has_positive) {
    const Bound part =
        DivBySignedBounds(a, {std::max<int64_t>(b.min_value, 1), b.max_value}, floor);
    result = first ? part : Union(result, part);
  }
  return result;
}

// floormod(a, b): the result has the divisor's sign and a smaller magnitude.
Bound FloorModBounds(const Bound& a, const Bound& b) {
  if (b.IsPoint() && !IsInf(a.min_value) && !IsInf(a.max_value) && b.min_value != 0) {
    const int64_t c = b.min_value;
    const int64_t k = internal::FloorDiv(a.min_value, c);
    if (k == internal::FloorDiv(a.max_value, c)) {
      const int64_t shift = BoundMul(k, c);
      if (!IsInf(shift)) return {BoundSub(a.min_value, shift), BoundSub(a.max_value, shift)};
    }
  }
  if (b.min_value > 0) {
    if (a.min_value >= 0 && a.max_value < b.min_value) return a;
    Bound r{0, BoundSub(b.max_value, 1)};
    if (a.min_value >= 0) r.max_value = std::min(r.max_value, a.max_value);
    return r;
  }
  if (b.max_value < 0) {
    if (a.max_value <= 0 && a.min_value > b.max_value) return a;
    Bound r{BoundAdd(b.min_value, 1), 0};
    if (a.max_value <= 0) r.min_value = std::max(r.min_value, a.min_value);
    return r;
  }
  const int64_t m = std::max(BoundNeg(b.min_value), b.max_value);
  return {BoundNeg(BoundSub(m, 1)), BoundSub(m, 1)};
}

// truncmod(a, b): the result has the dividend's sign, and truncmod(a, b) == truncmod(a, -b); for a
// non-negative dividend it equals floormod by |b|.
Bound TruncModBounds(const Bound& a, const Bound& b) {
  Bound abs_b;
  if (b.min_value > 0) {
    abs_b = b;
  } else if (b.max_value < 0) {
    abs_b = {BoundNeg(b.max_value), BoundNeg(b.min_value)};
  } else {
    abs_b = {1, std::max(BoundNeg(b.min_value), b.max_value)};
    if (abs_b.max_value <= 0) return Bound::Everything();  // only division by zero
  }
  if (a.min_value >= 0) return FloorModBounds(a, abs_b);
  if (a.max_value <= 0) {
    const Bound r = FloorModBounds({BoundNeg(a.max_value), BoundNeg(a.min_value)}, abs_b);
    return {BoundNeg(r.max_value), BoundNeg(r.min_value)};
  }
  const int64_t limit = BoundSub(abs_b.max_value, 1);
  return {std::max(a.min_value, BoundNeg(limit)), std::min(a.max_value, limit)};
}

// 0 or 1 when the comparison a < b (strict) or a <= b is decided by the bounds, else [0, 1].
Bound CompareLess(const Bound& a, const Bound& b, bool strict) {
  if (strict ? a.max_value < b.min_value : a.max_value <= b.min_value) return Bound::Point(1);
  if (strict ? a.min_value >= b.max_value : a.min_value > b.max_value) return Bound::Point(0);
  return {0, 1};
}

Bound CompareEqual(const Bound& a, const Bound& b) {
  if (a.IsPoint() && b.IsPoint() && a.min_value == b.min_value) return Bound::Point(1);
  if (a.max_value < b.min_value || b.max_value < a.min_value) return Bound::Point(0);
  return {0, 1};
}

Bound Negate(const Bound& a) { return {1 - a.max_value, 1 - a.min_value}; }

// A non-index node's bound from its raw interval: bool within [0, 1]; a wrapping type's whole
// range wherever the interval leaves it; nothing known for non-integers.
Bound Finalize(ir::DataType dtype, Bound b) {
  if (!internal::IsIntegerLike(dtype)) return Bound::Everything();
  const int64_t lo = internal::TypeMin(dtype), hi = internal::TypeMax(dtype);
  if (dtype.is_bool()) return {std::clamp(b.min_value, lo, hi), std::clamp(b.max_value, lo, hi)};
  if (b.min_value >= lo && b.max_value <= hi) return b;
  return {lo, hi};
}

// An index-type value's bound from the exact interval of the expression: the value does not
// overflow, so it lies in the part inside the type; an interval wholly outside says nothing.
Bound ClampIndex(ir::DataType dtype, const Bound& b) {
  const int64_t lo = internal::TypeMin(dtype), hi = internal::TypeMax(dtype);
  if (b.max_value < lo || b.min_value > hi) return {lo, hi};
  return {std::max(b.min_value, lo), std::min(b.max_value, hi)};
}

class BoundEvaluator {
 public:
  explicit BoundEvaluator(const ConstIntBoundMap& vars) : vars_(vars) {}

  // The bound of e's value.
  Bound Eval(const Expr& e) {
    const Bound raw = Raw(e);
    return internal::IsIndexType(e.dtype()) ? ClampIndex(e.dtype().element_of(), raw) : raw;
  }

 private:
  // For index types, the exact interval of e's arithmetic: sums, differences and products are not
  // clipped to the type, so a sum whose parts overflow while it does not keeps a sound bound
  // (the simplifier's expanded polynomials are such sums). Values used by any other node are
  // clipped (Eval).
  Bound Raw(const Expr& e) {
    const Bound b = EvalNode(e);
    return internal::IsIndexType(e.dtype()) ? b : Finalize(e.dtype(), b);
  }

  Bound EvalNode(const Expr& e) {
    const ir::DataType t = e.dtype();
    switch (e.kind()) {
      case ir::NodeKind::kIntImm: {
        const int64_t v = e.as<ir::IntImmNode>()->value;
        return internal::HasExactInt64Value(t, v) ? Bound::Point(v) : Bound{0, kPosInf};
      }
      case ir::NodeKind::kVar: {
        const auto* var = e.as<ir::VarNode>();
        if (auto it = locals_.find(var); it != locals_.end()) return it->second;
        if (auto it = vars_.find(var); it != vars_.end()) return it->second;
        return Bound::OfType(t.element_of());
      }
      case ir::NodeKind::kCast:
        return EvalCast(e.as<ir::CastNode>());
      case ir::NodeKind::kAdd:
        return Ring<ir::AddNode>(e, AddBounds);
      case ir::NodeKind::kSub:
        return Ring<ir::SubNode>(e, SubBounds);
      case ir::NodeKind::kMul:
        return Ring<ir::MulNode>(e, MulBounds);
      case ir::NodeKind::kDiv:
        if (!t.is_integer()) return Bound::Everything();
        return Binary<ir::DivNode>(
            e, [](const Bound& a, const Bound& b) { return DivBounds(a, b, false); });
      case ir::NodeKind::kMod:
        return Binary<ir::ModNode>(e, TruncModBounds);
      case ir::NodeKind::kFloorDiv:
        return Binary<ir::FloorDivNode>(
            e, [](const Bound& a, const Bound& b) { return DivBounds(a, b, true); });
      case ir::NodeKind::kFloorMod:
        return Binary<ir::FloorModNode>(e, FloorModBounds);
      case ir::NodeKind::kMin:
        return Binary<ir::MinNode>(e, [](const Bound& a, const Bound& b) {
          return Bound{std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
        });
      case ir::NodeKind::kMax:
        return Binary<ir::MaxNode>(e, [](const Bound& a, const Bound& b) {
          return Bound{std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
        });
      case ir::NodeKind::kLT:
        return Comparison<ir::LTNode>(
            e, [](const Bound& a, const Bound& b) { return CompareLess(a, b, true); });
      case ir::NodeKind::kLE:
        return Comparison<ir::LENode>(
            e, [](const Bound& a, const Bound& b) { return CompareLess(a, b, false); });
      case ir::NodeKind::kGT:
        return Comparison<ir::GTNode>(
            e, [](const Bound& a, const Bound& b) { return CompareLess(b, a, true); });
      case ir::NodeKind::kGE:
        return Comparison<ir::GENode>(
            e, [](const Bound& a, const Bound& b) { return CompareLess(b, a, false); });
      case ir::NodeKind::kEQ:
        return Comparison<ir::EQNode>(e, CompareEqual);
      case ir::NodeKind::kNE:
        return Comparison<ir::NENode>(
            e, [](const Bound& a, const Bound& b) { return Negate(CompareEqual(a, b)); });
      case ir::NodeKind::kAnd:
        return Binary<ir::AndNode>(e, [](const Bound& a, const Bound& b) {
          return Bound{std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
        });
      case ir::NodeKind::kOr:
        return Binary<ir::OrNode>(e, [](const Bound& a, const Bound& b) {
          return Bound{std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
        });
      case ir::NodeKind::kNot:
        return Negate(Eval(e.as<ir::NotNode>()->a));
      case ir::NodeKind::kSelect: {
        const auto* op = e.as<ir::SelectNode>();
        return Choose(Eval(op->condition), op->true_value, op->false_value);
      }
      case ir::NodeKind::kRamp: {
        const auto* op = e.as<ir::RampNode>();
        const Bound steps{0, op->lanes - 1};
        return AddBounds(Raw(op->base), MulBounds(Raw(op->stride), steps));
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
        return Bound::OfType(t.element_of());
    }
  }

  template <typename Node, typename Fn>
  Bound Ring(const Expr& e, Fn fn) {
    if (!internal::IsIntegerLike(e.dtype())) return Bound::Everything();
    const auto* op = e.as<Node>();
    return fn(Raw(op->a), Raw(op->b));
  }

  template <typename Node, typename Fn>
  Bound Binary(const Expr& e, Fn fn) {
    if (!internal::IsIntegerLike(e.dtype())) return Bound::Everything();
    const auto* op = e.as<Node>();
    return fn(Eval(op->a), Eval(op->b));
  }

  template <typename Node, typename Fn>
  Bound Comparison(const Expr& e, Fn fn) {
    const auto* op = e.as<Node>();
    if (!internal::IsIntegerLike(op->a.dtype())) return {0, 1};
    return fn(Eval(op->a), Eval(op->b));
  }

  Bound Choose(const Bound& condition, const Expr& t, const Expr& f) {
    if (condition.min_value >= 1) return Eval(t);
    if (condition.max_value <= 0) return Eval(f);
    return Union(Eval(t), Eval(f));
  }

  Bound EvalCast(const ir::CastNode* op) {
    const ir::DataType from = op->value.dtype();
    if (!internal::IsIntegerLike(op->dtype)) return Bound::Everything();
    if (!internal::IsIntegerLike(from)) return Bound::OfType(op->dtype.element_of());
    const Bound value = Eval(op->value);
    if (op->dtype.is_bool()) {
      if (value.min_value > 0 || value.max_value < 0) return Bound::Point(1);
      if (value.IsPoint()) return Bound::Point(0);
      return {0, 1};
    }
    // A value that fits the target converts unchanged; anything else may wrap.
    const Bound target = Bound::OfType(op->dtype.element_of());
    if (value.min_value >= target.min_value && value.max_value <= target.max_value) return value;
    return target;
  }

  Bound EvalCall(const ir::CallNode* op) {
    const ir::DataType t = op->dtype;
    const Bound whole = Bound::OfType(t.element_of());
    switch (op->op) {
      case ir::Intrinsic::kIfThenElse:
        return Choose(Eval(op->args[0]), op->args[1], op->args[2]);
      case ir::Intrinsic::kLikely:
        return Eval(op->args[0]);
      case ir::Intrinsic::kPopcount:
        return {0, t.bits()};
      case ir::Intrinsic::kBitwiseAnd: {
        if (!t.is_integer()) return whole;
        const Bound a = Eval(op->args[0]), b = Eval(op->args[1]);
        // A non-negative operand clears the sign bit and every bit above its own.
        if (a.min_value >= 0 && b.min_value >= 0) return {0, std::min(a.max_value, b.max_value)};
        if (a.min_value >= 0) return {0, a.max_value};
        if (b.min_value >= 0) return {0, b.max_value};
        return whole;
      }
      case ir::Intrinsic::kBitwiseNot: {
        if (!t.is_int()) return whole;
        const Bound a = Eval(op->args[0]);  // ~x == -x - 1
        return {BoundSub(BoundNeg(a.max_value), 1), BoundSub(BoundNeg(a.min_value), 1)};
      }
      case ir::Intrinsic::kShiftRight: {
        const int64_t* s = ir::AsConstInt(op->args[1]);
        if (!t.is_integer() || !s || *s < 0 || *s >= t.bits() || *s >= 63) return whole;
        const Bound a = Eval(op->args[0]);
        if (t.is_uint() && a.min_value < 0) return whole;
        return DivBounds(a, Bound::Point(int64_t{1} << *s), true);
      }
      case ir::Intrinsic::kShiftLeft: {
        const int64_t* s = ir::AsConstInt(op->args[1]);
        if (!t.is_integer() || !s || *s < 0 || *s >= t.bits() || *s >= 63) return whole;
        return MulBounds(Eval(op->args[0]), Bound::Point(int64_t{1} << *s));
      }
      default:
        return whole;
    }
  }

  const ConstIntBoundMap& vars_;
  ConstIntBoundMap locals_;  // Let-bound variables in scope
};

}  // namespace

ConstIntBound EvalConstIntBound(const Expr& e, const ConstIntBoundMap& vars) {
  return BoundEvaluator(vars).Eval(e);
}

}  // namespace tessel::arith
