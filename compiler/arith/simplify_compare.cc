// Rules for comparisons (EQ, NE, LT, LE, GT, GE) and for And, Or, Not.
//
// Layout of a simplified integer comparison: GT and GE become LT and LE with swapped operands;
// for index types the difference lhs - rhs is put in canonical form, divided by the gcd of its
// coefficients, and split back into positive terms (left) and negated negative terms (right), the
// constant on whichever side keeps it positive: "i + 1 < n", "i < 64", "3 < x".
#include <optional>

#include "compiler/arith/constant_fold.h"
#include "compiler/arith/expr_compare.h"
#include "compiler/arith/expr_query.h"
#include "compiler/arith/int_math.h"
#include "compiler/arith/pattern.h"
#include "compiler/arith/simplifier.h"
#include "compiler/ir/op.h"

namespace tessel::arith::internal {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;

namespace {

// Whether the bound b of d decides `d kind 0`, and how.
std::optional<bool> DecideAgainstZero(NodeKind kind, const ConstIntBound& b) {
  switch (kind) {
    case NodeKind::kLT:
      if (b.max_value < 0) return true;
      if (b.min_value >= 0) return false;
      break;
    case NodeKind::kLE:
      if (b.max_value <= 0) return true;
      if (b.min_value > 0) return false;
      break;
    case NodeKind::kEQ:
    case NodeKind::kNE:
      if (b.min_value == 0 && b.max_value == 0) return kind == NodeKind::kEQ;
      if (b.min_value > 0 || b.max_value < 0) return kind == NodeKind::kNE;
      break;
    default:
      break;
  }
  return std::nullopt;
}

// Whether the bounds of a and b decide `a kind b` (kind is LT, LE, EQ or NE).
std::optional<bool> DecideByBounds(NodeKind kind, const ConstIntBound& a, const ConstIntBound& b) {
  switch (kind) {
    case NodeKind::kLT:
      if (a.max_value < b.min_value) return true;
      if (a.min_value >= b.max_value) return false;
      break;
    case NodeKind::kLE:
      if (a.max_value <= b.min_value) return true;
      if (a.min_value > b.max_value) return false;
      break;
    default:
      if (a.IsPoint() && b.IsPoint() && a.min_value == b.min_value) return kind == NodeKind::kEQ;
      if (a.max_value < b.min_value || b.max_value < a.min_value) return kind == NodeKind::kNE;
      break;
  }
  return std::nullopt;
}

// [lo, hi] shrunk to its values congruent to m.base modulo m.coeff.
ConstIntBound Tighten(const ConstIntBound& b, const ModularSet& m) {
  if (m.coeff <= 1 || IsInf(b.min_value) || IsInf(b.max_value)) return b;
  const Wide lo = Wide{b.min_value} +
                  FloorMod(static_cast<int64_t>((Wide{m.base} - b.min_value) % m.coeff), m.coeff);
  const Wide hi = Wide{b.max_value} -
                  FloorMod(static_cast<int64_t>((Wide{b.max_value} - m.base) % m.coeff), m.coeff);
  if (lo > hi) return b;
  return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

bool SameTerms(const Polynomial& a, const Polynomial& b) {
  if (a.terms.size() != b.terms.size()) return false;
  for (size_t k = 0; k < a.terms.size(); ++k) {
    if (a.terms[k].coeff != b.terms[k].coeff ||
        CompareMonomial(a.terms[k].atoms, b.terms[k].atoms) != 0) {
      return false;
    }
  }
  return true;
}

// For a comparison of index-type operands in LT or LE form: p with `p < 0` equivalent to it.
std::optional<Polynomial> AsNegativeTest(const Expr& e) {
  const ir::LTNode* lt = e.as<ir::LTNode>();
  const ir::LENode* le = e.as<ir::LENode>();
  if (!lt && !le) return std::nullopt;
  const Expr& a = lt ? lt->a : le->a;
  const Expr& b = lt ? lt->b : le->b;
  if (!IsIndexType(a.dtype()) || !a.dtype().is_scalar()) return std::nullopt;
  Polynomial p = SubPolynomials(ToPolynomial(a), ToPolynomial(b));
  if (le) p = SubPolynomials(p, ConstantPolynomial(p.dtype, 1));  // p <= 0  <=>  p - 1 < 0
  if (p.wrapped) return std::nullopt;
  return p;
}

}  // namespace

Expr Simplifier::SimplifyCompare(NodeKind kind, Expr a, Expr b) {
  if (Expr folded = FoldBinary(kind, a, b); folded.defined()) return folded;
  if (kind == NodeKind::kGT || kind == NodeKind::kGE) {
    std::swap(a, b);
    kind = kind == NodeKind::kGT ? NodeKind::kLT : NodeKind::kLE;
  }
  const DataType t = a.dtype();
  if (!IsIntegerLike(t)) return MakeBinary(kind, a, b);  // floats: NaN defeats every identity
  Polynomial d;
  if (IsIndexType(t)) d = SubPolynomials(ToPolynomial(a), ToPolynomial(b));
  if (!IsIndexType(t) || d.wrapped) {
    if (ExprEqual(a, b) && Pure(a)) return BoolImm(kind == NodeKind::kEQ || kind == NodeKind::kLE);
    if (auto decided = DecideByBounds(kind, Bound(a), Bound(b))) return BoolImm(*decided);
    return MakeBinary(kind, a, b);
  }
  if (d.IsConstant()) return BoolImm(*DecideAgainstZero(kind, ConstIntBound::Point(d.constant)));
  ConstIntBound bound = DecisiveBound(
      d, [kind](const ConstIntBound& x) { return DecideAgainstZero(kind, x).has_value(); });
  if (auto decided = DecideAgainstZero(kind, bound)) return BoolImm(*decided);
  const ModularSet m = Modular(FromPolynomial(d));
  if ((kind == NodeKind::kEQ || kind == NodeKind::kNE) && !m.Contains(0)) {
    return BoolImm(kind == NodeKind::kNE);
  }
  if (auto decided = DecideAgainstZero(kind, Tighten(bound, m))) return BoolImm(*decided);

  // Divide by the gcd of the coefficients: g*D + k < 0 <=> D + floor(k/g) < 0, and
  // g*D + k <= 0 <=> D + ceil(k/g) <= 0.
  int64_t g = 0;
  for (const Term& term : d.terms) g = Gcd(g, term.coeff).value_or(1);
  if (g > 1) {
    const int64_t k = d.constant;
    if ((kind == NodeKind::kEQ || kind == NodeKind::kNE) && k % g != 0) {
      return BoolImm(kind == NodeKind::kNE);
    }
    for (Term& term : d.terms) term.coeff /= g;
    if (kind == NodeKind::kLT) {
      d.constant = FloorDiv(k, g);
    } else if (kind == NodeKind::kLE) {
      d.constant = FloorDiv(k, g) + (FloorMod(k, g) != 0 ? 1 : 0);
    } else {
      d.constant = k / g;
    }
    // Smaller coefficients can bound the difference where the large ones saturated.
    if (auto decided = DecideAgainstZero(kind, Bound(d))) return BoolImm(*decided);
  }
  Polynomial lhs{t, {}, 0}, rhs{t, {}, 0};
  for (const Term& term : d.terms) {
    if (term.coeff > 0) {
      lhs.terms.push_back(term);
    } else {
      rhs.terms.push_back(Term{term.atoms, WrapSub(t, 0, term.coeff)});
    }
  }
  if (d.constant > 0) {
    lhs.constant = d.constant;
  } else {
    rhs.constant = WrapSub(t, 0, d.constant);
  }
  if (!Fits(lhs) || !Fits(rhs)) return MakeBinary(kind, a, b);
  return MakeBinary(kind, FromPolynomial(lhs), FromPolynomial(rhs));
}

Expr Simplifier::SimplifyAnd(const Expr& a, const Expr& b) {
  const int lanes = a.dtype().lanes();
  int64_t c;
  if (IsConstScalar(a, &c)) {
    if (c) return b;
    if (Pure(b)) return BoolImm(false, lanes);
  }
  if (IsConstScalar(b, &c)) {
    if (c) return a;
    if (Pure(a)) return BoolImm(false, lanes);
  }
  const Expr e = ir::And(a, b);
  if (!Pure(e)) return e;
  if (ExprEqual(a, b)) return a;
  using namespace pattern;  // NOLINT: the rule notation
  PVar x, y;
  if (Matches(x && !x, e) || Matches(!x && x, e)) return BoolImm(false, lanes);
  TESSEL_REWRITE(e, (x || y) && x, x);
  TESSEL_REWRITE(e, (x || y) && y, y);
  TESSEL_REWRITE(e, x && (x || y), x);
  TESSEL_REWRITE(e, y && (x || y), y);
  if (Expr merged = MergeComparisons(true, a, b); merged.defined()) return merged;
  return e;
}

Expr Simplifier::SimplifyOr(const Expr& a, const Expr& b) {
  const int lanes = a.dtype().lanes();
  int64_t c;
  if (IsConstScalar(a, &c)) {
    if (!c) return b;
    if (Pure(b)) return BoolImm(true, lanes);
  }
  if (IsConstScalar(b, &c)) {
    if (!c) return a;
    if (Pure(a)) return BoolImm(true, lanes);
  }
  const Expr e = ir::Or(a, b);
  if (!Pure(e)) return e;
  if (ExprEqual(a, b)) return a;
  using namespace pattern;  // NOLINT: the rule notation
  PVar x, y;
  if (Matches(x || !x, e) || Matches(!x || x, e)) return BoolImm(true, lanes);
  TESSEL_REWRITE(e, (x && y) || x, x);
  TESSEL_REWRITE(e, (x && y) || y, y);
  TESSEL_REWRITE(e, x || (x && y), x);
  TESSEL_REWRITE(e, y || (x && y), y);
  if (Expr merged = MergeComparisons(false, a, b); merged.defined()) return merged;
  return e;
}

// Two tests of one linear form against constants: (V + k1 < 0) and/or (V + k2 < 0) is one test,
// and tests of V and -V can exclude each other or cover everything.
Expr Simplifier::MergeComparisons(bool is_and, const Expr& a, const Expr& b) {
  const std::optional<Polynomial> p1 = AsNegativeTest(a), p2 = AsNegativeTest(b);
  if (!p1 || !p2 || p1->dtype != p2->dtype) return Expr();
  if (SameTerms(*p1, *p2)) {
    // V + k < 0 with the larger k implies the other test: And keeps it, Or keeps the other one.
    return (p1->constant >= p2->constant) == is_and ? a : b;
  }
  if (const Polynomial n2 = ScalePolynomial(*p2, -1); !n2.wrapped && SameTerms(*p1, n2)) {
    // V + k1 < 0 and -V + k2 < 0 hold together exactly for k2 < V < -k1.
    const Wide k1 = p1->constant, k2 = p2->constant;
    if (is_and && k2 + 1 >= -k1) return BoolImm(false);
    if (!is_and && k2 < -k1) return BoolImm(true);
  }
  return Expr();
}

Expr Simplifier::SimplifyNot(const Expr& a) {
  const int lanes = a.dtype().lanes();
  int64_t c;
  if (IsConstScalar(a, &c)) return BoolImm(c == 0, lanes);
  if (const auto* op = a.as<ir::NotNode>()) return op->a;
  auto flipped = [&](NodeKind kind, const Expr& x, const Expr& y) {
    return a.dtype().is_scalar() ? SimplifyCompare(kind, x, y) : MakeBinary(kind, x, y);
  };
  if (const auto* op = a.as<ir::EQNode>()) return flipped(NodeKind::kNE, op->a, op->b);
  if (const auto* op = a.as<ir::NENode>()) return flipped(NodeKind::kEQ, op->a, op->b);
  // Integers are totally ordered; floats are not (NaN).
  if (const auto* op = a.as<ir::LTNode>(); op && IsIntegerLike(op->a.dtype())) {
    return flipped(NodeKind::kLE, op->b, op->a);
  }
  if (const auto* op = a.as<ir::LENode>(); op && IsIntegerLike(op->a.dtype())) {
    return flipped(NodeKind::kLT, op->b, op->a);
  }
  if (const auto* op = a.as<ir::GTNode>(); op && IsIntegerLike(op->a.dtype())) {
    return flipped(NodeKind::kLE, op->a, op->b);
  }
  if (const auto* op = a.as<ir::GENode>(); op && IsIntegerLike(op->a.dtype())) {
    return flipped(NodeKind::kLT, op->a, op->b);
  }
  return ir::Not(a);
}

}  // namespace tessel::arith::internal
