#include "compiler/arith/int_set.h"

#include <absl/strings/str_cat.h>

#include <optional>

#include "compiler/arith/analyzer.h"
#include "compiler/arith/constant_fold.h"
#include "compiler/arith/expr_compare.h"
#include "compiler/arith/expr_query.h"
#include "compiler/arith/int_math.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/check.h"

namespace tessel::arith {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;

IntSet IntSet::Nothing() {
  IntSet s;
  s.nothing_ = true;
  return s;
}

IntSet IntSet::Single(Expr value) {
  IntSet s;
  s.min_ = value;
  s.max_ = std::move(value);
  return s;
}

IntSet IntSet::Interval(Expr min, Expr max) {
  IntSet s;
  s.min_ = std::move(min);
  s.max_ = std::move(max);
  return s;
}

IntSet IntSet::FromRange(const ir::Range& range) {
  const DataType t = range.min.dtype();
  const Expr extent = range.extent.dtype() == t ? range.extent : ir::cast(t, range.extent);
  const Expr end = ir::IsConstInt(range.min, 0)
                       ? extent
                       : internal::MakeBinary(NodeKind::kAdd, range.min, extent);
  return Interval(range.min, internal::MakeBinary(NodeKind::kSub, end, ir::IntImm(t, 1)));
}

bool IntSet::IsSinglePoint() const {
  return !nothing_ && min_.defined() && max_.defined() && internal::ExprEqual(min_, max_);
}

std::string IntSet::ToString() const {
  if (nothing_) return "nothing";
  if (IsEverything()) return "everything";
  return absl::StrCat(
      min_.defined() ? absl::StrCat("[", ir::ToString(min_)) : std::string("(-inf"), ", ",
      max_.defined() ? absl::StrCat(ir::ToString(max_), "]") : std::string("+inf)"));
}

namespace {

using internal::Wide;

constexpr size_t kMaxEndNodes = 256;

bool IsIntegerScalarType(DataType t) { return internal::IsIntegerLike(t.element_of()); }

Wide FloorDivWide(Wide a, Wide b) {
  const Wide q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// a kind b for the ends of a set. Immediates combine exactly; a result outside the type (the
// extremes of the domain overflow) is undefined, which leaves that end unbounded.
Expr Combine(NodeKind kind, const Expr& a, const Expr& b) {
  if (!a.defined() || !b.defined()) return Expr();
  const int64_t* x = ir::AsConstInt(a);
  const int64_t* y = ir::AsConstInt(b);
  const DataType t = a.dtype();
  if (!x || !y || !internal::IsIndexType(t)) return internal::MakeBinary(kind, a, b);
  Wide r;
  switch (kind) {
    case NodeKind::kAdd:
      r = Wide{*x} + *y;
      break;
    case NodeKind::kSub:
      r = Wide{*x} - *y;
      break;
    case NodeKind::kMul:
      r = Wide{*x} * *y;
      break;
    case NodeKind::kFloorDiv:
      if (*y == 0) return Expr();
      r = FloorDivWide(*x, *y);
      break;
    case NodeKind::kDiv:
      if (*y == 0) return Expr();
      r = Wide{*x} / *y;
      break;
    default:
      return internal::MakeBinary(kind, a, b);
  }
  if (r < internal::TypeMin(t) || r > internal::TypeMax(t) || r == internal::kNegInf ||
      r == internal::kPosInf) {
    return Expr();
  }
  return ir::IntImm(t, static_cast<int64_t>(r));
}

Expr Bin(NodeKind kind, const Expr& a, const Expr& b) { return internal::MakeBinary(kind, a, b); }

Expr Imm(const Expr& like, int64_t v) { return ir::IntImm(like.dtype().element_of(), v); }

// The interval evaluator. Ends are simplified as they are made, which keeps them small.
class SetEvaluator {
 public:
  SetEvaluator(const IntSetMap& dom, Analyzer& analyzer) : dom_(dom), analyzer_(analyzer) {}

  IntSet Eval(const Expr& e) {
    const DataType t = e.dtype().element_of();
    if (!UsesDom(e)) return e.dtype().is_scalar() ? IntSet::Single(e) : Lanes(e);
    if (t.is_bool()) return EvalBool(e);
    if (!internal::IsIndexType(t)) return IntSet::Everything();
    switch (e.kind()) {
      case NodeKind::kVar: {
        const auto* var = e.as<ir::VarNode>();
        if (auto it = locals_.find(var); it != locals_.end()) return it->second;
        if (auto it = dom_.find(var); it != dom_.end()) return it->second;
        return IntSet::Single(e);
      }
      case NodeKind::kAdd:
        return Add(Eval(e.as<ir::AddNode>()->a), Eval(e.as<ir::AddNode>()->b));
      case NodeKind::kSub:
        return Sub(Eval(e.as<ir::SubNode>()->a), Eval(e.as<ir::SubNode>()->b));
      case NodeKind::kMul:
        return Mul(Eval(e.as<ir::MulNode>()->a), Eval(e.as<ir::MulNode>()->b));
      case NodeKind::kFloorDiv:
        return Div(Eval(e.as<ir::FloorDivNode>()->a), Eval(e.as<ir::FloorDivNode>()->b), true);
      case NodeKind::kDiv:
        return Div(Eval(e.as<ir::DivNode>()->a), Eval(e.as<ir::DivNode>()->b), false);
      case NodeKind::kFloorMod:
        return FloorMod(Eval(e.as<ir::FloorModNode>()->a), Eval(e.as<ir::FloorModNode>()->b));
      case NodeKind::kMod:
        return TruncMod(Eval(e.as<ir::ModNode>()->a), Eval(e.as<ir::ModNode>()->b));
      case NodeKind::kMin:
        return MinMax(Eval(e.as<ir::MinNode>()->a), Eval(e.as<ir::MinNode>()->b), true);
      case NodeKind::kMax:
        return MinMax(Eval(e.as<ir::MaxNode>()->a), Eval(e.as<ir::MaxNode>()->b), false);
      case NodeKind::kSelect: {
        const auto* op = e.as<ir::SelectNode>();
        return Choose(op->condition, op->true_value, op->false_value);
      }
      case NodeKind::kCall: {
        const auto* op = e.as<ir::CallNode>();
        if (op->op == ir::Intrinsic::kIfThenElse)
          return Choose(op->args[0], op->args[1], op->args[2]);
        return IntSet::Everything();
      }
      case NodeKind::kCast:
        return EvalCast(e.as<ir::CastNode>());
      case NodeKind::kLet:
        return EvalLet(e.as<ir::LetNode>());
      case NodeKind::kRamp: {
        const auto* op = e.as<ir::RampNode>();
        const DataType st = op->base.dtype();
        const IntSet steps = IntSet::Interval(ir::IntImm(st, 0), ir::IntImm(st, op->lanes - 1));
        return Add(Eval(op->base), Mul(Eval(op->stride), steps));
      }
      case NodeKind::kBroadcast:
        return Eval(e.as<ir::BroadcastNode>()->value);
      default:
        return IntSet::Everything();
    }
  }

 private:
  bool UsesDom(const Expr& e) {
    return internal::UsesVar(
        e, [this](const ir::VarNode* v) { return dom_.count(v) || locals_.count(v); });
  }

  Expr S(const Expr& e) { return analyzer_.Simplify(e); }

  // An interval from ends yet to be simplified. An end larger than kMaxEndNodes is dropped
  // (unbounded): the products of unknown sign multiply ends, and this keeps them from growing
  // exponentially.
  IntSet Make(const Expr& lo, const Expr& hi) {
    auto end = [this](const Expr& e) {
      if (!e.defined()) return e;
      const Expr s = S(e);
      return internal::ExprSize(s, kMaxEndNodes + 1) > kMaxEndNodes ? Expr() : s;
    };
    return IntSet::Interval(end(lo), end(hi));
  }

  // A vector expression that does not depend on dom: the union of its lanes.
  IntSet Lanes(const Expr& e) {
    if (const auto* b = e.as<ir::BroadcastNode>()) return Eval(b->value);
    if (const auto* r = e.as<ir::RampNode>()) {
      if (internal::IsIndexType(r->base.dtype())) {
        const Expr last = Combine(NodeKind::kAdd, r->base,
                                  Combine(NodeKind::kMul, r->stride, Imm(r->stride, r->lanes - 1)));
        if (!last.defined()) return IntSet::Everything();
        return Make(Bin(NodeKind::kMin, r->base, last), Bin(NodeKind::kMax, r->base, last));
      }
    }
    return IntSet::Everything();
  }

  static bool AnyNothing(const IntSet& a, const IntSet& b) {
    return a.IsNothing() || b.IsNothing();
  }

  IntSet Add(const IntSet& a, const IntSet& b) {
    if (AnyNothing(a, b)) return IntSet::Nothing();
    Expr lo, hi;
    if (a.HasLowerBound() && b.HasLowerBound()) lo = Combine(NodeKind::kAdd, a.min(), b.min());
    if (a.HasUpperBound() && b.HasUpperBound()) hi = Combine(NodeKind::kAdd, a.max(), b.max());
    return Make(lo, hi);
  }

  IntSet Sub(const IntSet& a, const IntSet& b) {
    if (AnyNothing(a, b)) return IntSet::Nothing();
    Expr lo, hi;
    if (a.HasLowerBound() && b.HasUpperBound()) lo = Combine(NodeKind::kSub, a.min(), b.max());
    if (a.HasUpperBound() && b.HasLowerBound()) hi = Combine(NodeKind::kSub, a.max(), b.min());
    return Make(lo, hi);
  }

  // The sign of a single value: 1 (>= 0), -1 (<= 0) or 0 (unknown).
  int Sign(const Expr& v) {
    if (analyzer_.CanProveGreaterEqual(v, 0)) return 1;
    if (analyzer_.CanProveLess(v, 1)) return -1;
    return 0;
  }

  // s * v for a single value v of known sign.
  IntSet Scale(const IntSet& s, const Expr& v, int sign) {
    Expr lo, hi;
    if (sign > 0) {
      if (s.HasLowerBound()) lo = Combine(NodeKind::kMul, s.min(), v);
      if (s.HasUpperBound()) hi = Combine(NodeKind::kMul, s.max(), v);
    } else {
      if (s.HasUpperBound()) lo = Combine(NodeKind::kMul, s.max(), v);
      if (s.HasLowerBound()) hi = Combine(NodeKind::kMul, s.min(), v);
    }
    return Make(lo, hi);
  }

  IntSet Mul(const IntSet& a, const IntSet& b) {
    if (AnyNothing(a, b)) return IntSet::Nothing();
    if (a.IsSinglePoint() && b.IsSinglePoint()) {
      const Expr p = Combine(NodeKind::kMul, a.min(), b.min());
      return p.defined() ? IntSet::Single(S(p)) : IntSet::Everything();
    }
    if (b.IsSinglePoint()) {
      if (const int sign = Sign(b.min())) return Scale(a, b.min(), sign);
    }
    if (a.IsSinglePoint()) {
      if (const int sign = Sign(a.min())) return Scale(b, a.min(), sign);
    }
    return Corners(a, b,
                   [](const Expr& x, const Expr& y) { return Combine(NodeKind::kMul, x, y); });
  }

  // The extremes of fn over the four corners, for fn monotone in each argument separately.
  template <typename Fn>
  IntSet Corners(const IntSet& a, const IntSet& b, Fn fn) {
    if (!a.HasLowerBound() || !a.HasUpperBound() || !b.HasLowerBound() || !b.HasUpperBound()) {
      return IntSet::Everything();
    }
    Expr p[] = {fn(a.min(), b.min()), fn(a.min(), b.max()), fn(a.max(), b.min()),
                fn(a.max(), b.max())};
    for (Expr& x : p) {
      if (!x.defined()) return IntSet::Everything();
      x = S(x);
    }
    return Make(
        Bin(NodeKind::kMin, Bin(NodeKind::kMin, p[0], p[1]), Bin(NodeKind::kMin, p[2], p[3])),
        Bin(NodeKind::kMax, Bin(NodeKind::kMax, p[0], p[1]), Bin(NodeKind::kMax, p[2], p[3])));
  }

  IntSet Div(const IntSet& a, const IntSet& b, bool floor) {
    if (AnyNothing(a, b)) return IntSet::Nothing();
    auto div = [floor](const Expr& x, const Expr& y) {
      return Combine(floor ? NodeKind::kFloorDiv : NodeKind::kDiv, x, y);
    };
    if (a.IsSinglePoint() && b.IsSinglePoint()) {
      const Expr q = div(a.min(), b.min());
      return q.defined() ? IntSet::Single(S(q)) : IntSet::Everything();
    }
    if (b.IsSinglePoint()) {
      // Both roundings are monotone in the dividend for a fixed divisor.
      const Expr& c = b.min();
      Expr lo, hi;
      if (analyzer_.CanProveGreaterEqual(c, 1)) {
        if (a.HasLowerBound()) lo = div(a.min(), c);
        if (a.HasUpperBound()) hi = div(a.max(), c);
        return Make(lo, hi);
      }
      if (analyzer_.CanProveLess(c, 0)) {
        if (a.HasUpperBound()) lo = div(a.max(), c);
        if (a.HasLowerBound()) hi = div(a.min(), c);
        return Make(lo, hi);
      }
      return IntSet::Everything();
    }
    // A divisor interval of one sign: the quotient is monotone in each operand.
    if (b.HasLowerBound() && analyzer_.CanProveGreaterEqual(b.min(), 1)) return Corners(a, b, div);
    if (b.HasUpperBound() && analyzer_.CanProveLess(b.max(), 0)) return Corners(a, b, div);
    return IntSet::Everything();
  }

  IntSet FloorMod(const IntSet& a, const IntSet& b) {
    if (AnyNothing(a, b)) return IntSet::Nothing();
    if (!b.IsSinglePoint()) {
      // A positive divisor interval: [0, b.max - 1].
      if (b.HasLowerBound() && b.HasUpperBound() && analyzer_.CanProveGreaterEqual(b.min(), 1)) {
        return Make(Imm(b.max(), 0), Combine(NodeKind::kSub, b.max(), Imm(b.max(), 1)));
      }
      return IntSet::Everything();
    }
    const Expr& c = b.min();
    if (a.IsSinglePoint()) return IntSet::Single(S(Bin(NodeKind::kFloorMod, a.min(), c)));
    const Expr zero = Imm(c, 0), one = Imm(c, 1);
    if (analyzer_.CanProveGreaterEqual(c, 1)) {
      // Within one block of c the remainder moves with the dividend.
      if (a.HasLowerBound() && a.HasUpperBound() &&
          internal::ExprEqual(S(Bin(NodeKind::kFloorDiv, a.min(), c)),
                              S(Bin(NodeKind::kFloorDiv, a.max(), c)))) {
        return Make(Bin(NodeKind::kFloorMod, a.min(), c), Bin(NodeKind::kFloorMod, a.max(), c));
      }
      return Make(zero, Bin(NodeKind::kSub, c, one));
    }
    if (analyzer_.CanProveLess(c, 0)) return Make(Bin(NodeKind::kAdd, c, one), zero);
    return IntSet::Everything();
  }

  IntSet TruncMod(const IntSet& a, const IntSet& b) {
    if (AnyNothing(a, b)) return IntSet::Nothing();
    if (!b.IsSinglePoint()) return IntSet::Everything();
    const Expr& c = b.min();
    if (a.IsSinglePoint()) return IntSet::Single(S(Bin(NodeKind::kMod, a.min(), c)));
    // For a non-negative dividend truncation is floor division by |c|.
    const int sign = Sign(c);
    if (sign == 0) return IntSet::Everything();
    const Expr abs_c = sign > 0 ? c : Combine(NodeKind::kSub, Imm(c, 0), c);
    if (!abs_c.defined()) return IntSet::Everything();
    if (a.HasLowerBound() && analyzer_.CanProveGreaterEqual(a.min(), 0)) {
      return FloorMod(a, IntSet::Single(S(abs_c)));
    }
    return Make(Bin(NodeKind::kSub, Imm(c, 1), abs_c), Bin(NodeKind::kSub, abs_c, Imm(c, 1)));
  }

  IntSet MinMax(const IntSet& a, const IntSet& b, bool is_min) {
    if (AnyNothing(a, b)) return IntSet::Nothing();
    auto pick = [is_min](const Expr& x, const Expr& y) {
      return Bin(is_min ? NodeKind::kMin : NodeKind::kMax, x, y);
    };
    Expr lo, hi;
    // min's lower end is unbounded if either is; its upper end if both are (max alike, reversed).
    if (a.HasLowerBound() && b.HasLowerBound()) {
      lo = pick(a.min(), b.min());
    } else if (!is_min) {
      lo = a.HasLowerBound() ? a.min() : b.min();
    }
    if (a.HasUpperBound() && b.HasUpperBound()) {
      hi = pick(a.max(), b.max());
    } else if (is_min) {
      hi = a.HasUpperBound() ? a.max() : b.max();
    }
    return Make(lo, hi);
  }

  IntSet Choose(const Expr& condition, const Expr& t, const Expr& f) {
    const IntSet c = Eval(condition);
    if (c.IsSinglePoint()) {
      if (ir::IsConstInt(c.min(), 1)) return Eval(t);
      if (ir::IsConstInt(c.min(), 0)) return Eval(f);
    }
    return Union(Eval(t), Eval(f), analyzer_);
  }

  IntSet EvalCast(const ir::CastNode* op) {
    const DataType from = op->value.dtype().element_of(), to = op->dtype.element_of();
    if (!internal::IsIntegerLike(from)) return IntSet::Everything();
    const IntSet v = Eval(op->value);
    if (v.IsNothing()) return v;
    // Ends convert when every value in between converts unchanged.
    const bool widening = from.is_bool() || (from.is_int() && to.bits() >= from.bits()) ||
                          (from.is_uint() && to.bits() > from.bits());
    auto fits = [&](const Expr& end) {
      if (widening) return true;
      const ConstIntBound b = analyzer_.ConstIntBound(end);
      return b.min_value >= internal::TypeMin(to) && b.max_value <= internal::TypeMax(to);
    };
    Expr lo, hi;
    if (v.HasLowerBound() && fits(v.min())) lo = ir::cast(to, v.min());
    if (v.HasUpperBound() && fits(v.max())) hi = ir::cast(to, v.max());
    if (!widening && (!lo.defined() || !hi.defined())) return IntSet::Everything();
    return Make(lo, hi);
  }

  IntSet EvalLet(const ir::LetNode* op) {
    const IntSet value = Eval(op->value);
    auto [it, inserted] = locals_.emplace(op->var.get(), value);
    const IntSet saved = it->second;
    it->second = value;
    const IntSet body = Eval(op->body);
    if (inserted) {
      locals_.erase(op->var.get());
    } else {
      locals_[op->var.get()] = saved;
    }
    return body;
  }

  // Bool expressions as subsets of [false, true].
  IntSet EvalBool(const Expr& e) {
    const Expr f = ir::IntImm(ir::kBool, 0), t = ir::IntImm(ir::kBool, 1);
    const IntSet both = IntSet::Interval(f, t);
    auto as_bool = [&](const IntSet& s) {
      if (s.HasLowerBound() && s.HasUpperBound()) return s;
      return both;
    };
    switch (e.kind()) {
      case NodeKind::kNot: {
        const IntSet a = as_bool(Eval(e.as<ir::NotNode>()->a));
        return Make(ir::operator!(a.max()), ir::operator!(a.min()));
      }
      case NodeKind::kAnd: {
        const IntSet a = as_bool(Eval(e.as<ir::AndNode>()->a)),
                     b = as_bool(Eval(e.as<ir::AndNode>()->b));
        return Make(a.min() && b.min(), a.max() && b.max());
      }
      case NodeKind::kOr: {
        const IntSet a = as_bool(Eval(e.as<ir::OrNode>()->a)),
                     b = as_bool(Eval(e.as<ir::OrNode>()->b));
        return Make(a.min() || b.min(), a.max() || b.max());
      }
      case NodeKind::kLT:
        return Compare(e.as<ir::LTNode>()->a, e.as<ir::LTNode>()->b, NodeKind::kLT);
      case NodeKind::kLE:
        return Compare(e.as<ir::LENode>()->a, e.as<ir::LENode>()->b, NodeKind::kLE);
      case NodeKind::kGT:
        return Compare(e.as<ir::GTNode>()->b, e.as<ir::GTNode>()->a, NodeKind::kLT);
      case NodeKind::kGE:
        return Compare(e.as<ir::GENode>()->b, e.as<ir::GENode>()->a, NodeKind::kLE);
      case NodeKind::kEQ:
        return Compare(e.as<ir::EQNode>()->a, e.as<ir::EQNode>()->b, NodeKind::kEQ);
      case NodeKind::kNE:
        return Compare(e.as<ir::NENode>()->a, e.as<ir::NENode>()->b, NodeKind::kNE);
      case NodeKind::kLet:
        return as_bool(EvalLet(e.as<ir::LetNode>()));
      default:
        return both;
    }
  }

  // a kind b over the sets, through the set of a - b.
  IntSet Compare(const Expr& a, const Expr& b, NodeKind kind) {
    const IntSet both = IntSet::Interval(ir::IntImm(ir::kBool, 0), ir::IntImm(ir::kBool, 1));
    if (!internal::IsIndexType(a.dtype())) return both;
    const IntSet d = Eval(S(Bin(NodeKind::kSub, a, b)));
    if (d.IsNothing()) return d;
    auto proves = [&](const Expr& end, bool defined, auto predicate) {
      return defined && analyzer_.CanProve(predicate(end));
    };
    const Expr zero = Imm(a, 0);
    auto lt0 = [&](const Expr& x) { return Bin(NodeKind::kLT, x, zero); };
    auto le0 = [&](const Expr& x) { return Bin(NodeKind::kLE, x, zero); };
    auto gt0 = [&](const Expr& x) { return Bin(NodeKind::kGT, x, zero); };
    auto ge0 = [&](const Expr& x) { return Bin(NodeKind::kGE, x, zero); };
    std::optional<bool> decided;
    switch (kind) {
      case NodeKind::kLT:
        if (proves(d.max(), d.HasUpperBound(), lt0))
          decided = true;
        else if (proves(d.min(), d.HasLowerBound(), ge0))
          decided = false;
        break;
      case NodeKind::kLE:
        if (proves(d.max(), d.HasUpperBound(), le0))
          decided = true;
        else if (proves(d.min(), d.HasLowerBound(), gt0))
          decided = false;
        break;
      default:
        if (d.IsSinglePoint() && ir::IsConstInt(d.min(), 0)) {
          decided = kind == NodeKind::kEQ;
        } else if (proves(d.min(), d.HasLowerBound(), gt0) ||
                   proves(d.max(), d.HasUpperBound(), lt0)) {
          decided = kind == NodeKind::kNE;
        }
        break;
    }
    if (decided) return IntSet::Single(ir::IntImm(ir::kBool, *decided));
    return both;
  }

  const IntSetMap& dom_;
  Analyzer& analyzer_;
  IntSetMap locals_;  // Let-bound variables in scope
};

}  // namespace

IntSet Union(const IntSet& a, const IntSet& b, Analyzer& analyzer) {
  if (a.IsNothing()) return b;
  if (b.IsNothing()) return a;
  Expr lo, hi;
  if (a.HasLowerBound() && b.HasLowerBound())
    lo = analyzer.Simplify(Bin(NodeKind::kMin, a.min(), b.min()));
  if (a.HasUpperBound() && b.HasUpperBound())
    hi = analyzer.Simplify(Bin(NodeKind::kMax, a.max(), b.max()));
  return IntSet::Interval(lo, hi);
}

IntSet Intersect(const IntSet& a, const IntSet& b, Analyzer& analyzer) {
  if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
  Expr lo = a.HasLowerBound() ? a.min() : b.min();
  if (a.HasLowerBound() && b.HasLowerBound())
    lo = analyzer.Simplify(Bin(NodeKind::kMax, a.min(), b.min()));
  Expr hi = a.HasUpperBound() ? a.max() : b.max();
  if (a.HasUpperBound() && b.HasUpperBound())
    hi = analyzer.Simplify(Bin(NodeKind::kMin, a.max(), b.max()));
  if (lo.defined() && hi.defined() && analyzer.CanProve(Bin(NodeKind::kLT, hi, lo)))
    return IntSet::Nothing();
  return IntSet::Interval(lo, hi);
}

IntSet EvalSet(const Expr& e, const IntSetMap& dom, Analyzer& analyzer) {
  if (!IsIntegerScalarType(e.dtype())) return IntSet::Everything();
  const IntSet s = SetEvaluator(dom, analyzer).Eval(analyzer.Simplify(e));
  // A variable's set comes back as dom holds it; every end leaves simplified.
  if (s.IsNothing() || s.IsEverything()) return s;
  return IntSet::Interval(s.HasLowerBound() ? analyzer.Simplify(s.min()) : Expr(),
                          s.HasUpperBound() ? analyzer.Simplify(s.max()) : Expr());
}

ir::Range CoverRange(const IntSet& s, const ir::Range& bound, Analyzer& analyzer) {
  if (s.IsNothing()) return {bound.min, ir::MakeZero(bound.extent.dtype())};
  const IntSet whole = IntSet::FromRange(bound);
  const Expr lo = s.HasLowerBound() ? s.min() : whole.min();
  const Expr hi = s.HasUpperBound() ? s.max() : whole.max();
  return {analyzer.Simplify(lo),
          analyzer.Simplify(Bin(NodeKind::kAdd, Bin(NodeKind::kSub, hi, lo), Imm(lo, 1)))};
}

ir::Range ToRange(const IntSet& s, Analyzer& analyzer) {
  TESSEL_CHECK(s.HasLowerBound() && s.HasUpperBound()) << "ToRange of " << s.ToString();
  const Expr extent = Bin(NodeKind::kAdd, Bin(NodeKind::kSub, s.max(), s.min()), Imm(s.min(), 1));
  return {analyzer.Simplify(s.min()), analyzer.Simplify(extent)};
}

}  // namespace tessel::arith
