// Rules for Add, Sub, Mul (the polynomial canonical form) and for Div, Mod, FloorDiv, FloorMod.
#include "compiler/arith/constant_fold.h"
#include "compiler/arith/expr_compare.h"
#include "compiler/arith/expr_query.h"
#include "compiler/arith/int_math.h"
#include "compiler/arith/simplifier.h"
#include "compiler/ir/op.h"

namespace tessel::arith::internal {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;

namespace {

// Deeper nests of division by constants than this are left as they are.
constexpr int kMaxDivisionDepth = 4;

bool SameBlock(const ConstIntBound& b, int64_t c) {
  return !IsInf(b.min_value) && !IsInf(b.max_value) &&
         FloorDiv(b.min_value, c) == FloorDiv(b.max_value, c);
}

// The divisor of a FloorDiv/Div/FloorMod/Mod node when it is a non-zero immediate.
bool ConstDivisor(const Expr& b, int64_t* c) {
  const int64_t* v = ir::AsConstInt(b);
  if (!v || *v == 0 || !HasExactInt64Value(b.dtype(), *v)) return false;
  *c = *v;
  return true;
}

// gcd of c, p's constant and its coefficients.
int64_t CommonFactor(const Polynomial& p, int64_t c) {
  int64_t g = Gcd(c, p.constant).value_or(1);
  for (const Term& t : p.terms) g = Gcd(g, t.coeff).value_or(1);
  return g;
}

Polynomial DivideExactly(const Polynomial& p, int64_t g) {
  Polynomial out{p.dtype, p.terms, p.constant / g};
  for (Term& t : out.terms) t.coeff /= g;
  return out;
}

// Whether `quotient` is the quotient matching floormod(x, c) (or truncmod when trunc): x / c
// itself, or, for x = floordiv(y, c1), the merged floordiv(y, c1 * c).
bool IsQuotientOf(const Expr& quotient, const Expr& x, int64_t c, bool trunc) {
  int64_t q;
  if (trunc) {
    const auto* d = quotient.as<ir::DivNode>();
    return d && ConstDivisor(d->b, &q) && q == c && ExprEqual(d->a, x);
  }
  const auto* d = quotient.as<ir::FloorDivNode>();
  if (!d || !ConstDivisor(d->b, &q)) return false;
  if (q == c && ExprEqual(d->a, x)) return true;
  const auto* inner = x.as<ir::FloorDivNode>();
  int64_t c1;
  return inner && c > 0 && ConstDivisor(inner->b, &c1) && c1 > 0 && Wide{c1} * c == q &&
         ExprEqual(inner->a, d->a);
}

}  // namespace

Expr Simplifier::SimplifyArith(NodeKind kind, const Expr& a, const Expr& b) {
  if (!a.dtype().is_integer()) return MakeBinary(kind, a, b);  // IEEE: fold, never reassociate
  const Polynomial pa = ToPolynomial(a), pb = ToPolynomial(b);
  const Polynomial p = kind == NodeKind::kAdd   ? AddPolynomials(pa, pb)
                       : kind == NodeKind::kSub ? SubPolynomials(pa, pb)
                                                : MulPolynomials(pa, pb);
  // Coefficients that overflow would make the expanded form overflow where the operands do not.
  if (p.wrapped) return MakeBinary(kind, a, b);
  return FromPolynomial(kind == NodeKind::kMul ? p : MergeDivModPairs(p));
}

// k * c * (x / c) + k * (x % c) == k * x, for floor and for truncating division alike.
Polynomial Simplifier::MergeDivModPairs(Polynomial p) {
  const DataType t = p.dtype;
  for (size_t round = 0; round < p.terms.size(); ++round) {
    bool merged = false;
    for (size_t i = 0; i < p.terms.size() && !merged; ++i) {
      if (p.terms[i].atoms.size() != 1) continue;
      const Expr& atom = p.terms[i].atoms[0];
      const auto* floor_mod = atom.as<ir::FloorModNode>();
      const auto* trunc_mod = atom.as<ir::ModNode>();
      if (!floor_mod && !trunc_mod) continue;
      const Expr& x = floor_mod ? floor_mod->a : trunc_mod->a;
      int64_t c;
      if (!ConstDivisor(floor_mod ? floor_mod->b : trunc_mod->b, &c)) continue;
      const int64_t k = p.terms[i].coeff;
      const int64_t want = WrapMul(t, k, c);
      for (size_t j = 0; j < p.terms.size(); ++j) {
        if (j == i || p.terms[j].atoms.size() != 1 || p.terms[j].coeff != want) continue;
        if (!IsQuotientOf(p.terms[j].atoms[0], x, c, trunc_mod != nullptr)) continue;
        Polynomial rest{t, {}, p.constant};
        for (size_t n = 0; n < p.terms.size(); ++n) {
          if (n != i && n != j) rest.terms.push_back(p.terms[n]);
        }
        Polynomial candidate = AddPolynomials(rest, ScalePolynomial(ToPolynomial(x), k));
        if (candidate.wrapped) continue;
        p = std::move(candidate);
        merged = true;
        break;
      }
    }
    if (!merged) break;
  }
  return p;
}

Expr Simplifier::SimplifyDivision(NodeKind kind, const Expr& a, const Expr& b) {
  const DataType t = a.dtype();
  if (!t.is_integer()) return MakeBinary(kind, a, b);
  const bool is_div = kind == NodeKind::kDiv || kind == NodeKind::kFloorDiv;
  const bool trunc = kind == NodeKind::kDiv || kind == NodeKind::kMod;
  int64_t c = 0;
  const bool const_divisor = ConstDivisor(b, &c);
  if (const_divisor && c == 1) return is_div ? a : ir::IntImm(t, 0);
  if (const_divisor && c == -1) {
    if (!is_div) return ir::IntImm(t, 0);
    if (IsIndexType(t)) return FromPolynomial(ScalePolynomial(ToPolynomial(a), -1));
  }
  // x / x == 1 and x % x == 0 wherever the division is defined.
  if (!const_divisor && !ir::AsConstInt(b) && ExprEqual(a, b) && Pure(a))
    return ir::IntImm(t, is_div ? 1 : 0);
  if (Expr r = DivisionByBounds(kind, a, b); r.defined()) return r;
  if (IsIndexType(t)) {
    // For a non-negative dividend and a positive divisor truncation is floor division.
    if (const_divisor && c > 0 && (!trunc || Bound(a).min_value >= 0)) {
      return is_div ? DivByConstant(a, c, trunc, 0) : ModByConstant(a, c, trunc, 0);
    }
    if (!const_divisor) {
      if (Expr r = DivisionBySymbol(kind, a, b); r.defined()) return r;
    }
  }
  return MakeBinary(kind, a, b);
}

Expr Simplifier::DivisionByBounds(NodeKind kind, const Expr& a, const Expr& b) {
  const DataType t = a.dtype();
  const bool is_div = kind == NodeKind::kDiv || kind == NodeKind::kFloorDiv;
  const bool floor = kind == NodeKind::kFloorDiv || kind == NodeKind::kFloorMod;
  const ConstIntBound ba = Bound(a), bb = Bound(b);
  if (bb.IsPoint() && bb.min_value != 0 && !IsInf(ba.min_value) && !IsInf(ba.max_value)) {
    // The quotient is monotone in the dividend: equal at both ends means constant.
    const int64_t c = bb.min_value;
    const int64_t q = floor ? FloorDiv(ba.min_value, c) : TruncDiv(ba.min_value, c);
    const int64_t q_max = floor ? FloorDiv(ba.max_value, c) : TruncDiv(ba.max_value, c);
    if (q == q_max) {
      if (is_div) return ir::IntImm(t, q);
      // a - q * c, exact in the ring of the type.
      return FromPolynomial(
          SubPolynomials(ToPolynomial(a), ConstantPolynomial(t, WrapMul(t, q, c))));
    }
  }
  if (ba.min_value >= 0 && bb.min_value > 0 && ba.max_value < bb.min_value) {
    return is_div ? ir::IntImm(t, 0) : a;
  }
  return Expr();
}

// floordiv(a, c) for c > 0 (truncdiv when trunc, for a >= 0): a = c*q + r splits into q plus the
// quotient of the remainder terms r, which is decided when r lies in one block of c.
Expr Simplifier::DivByConstant(const Expr& a, int64_t c, bool trunc, int depth) {
  const DataType t = a.dtype();
  const Polynomial p = ToPolynomial(a);
  Polynomial q{t, {}, 0}, r{t, {}, p.constant};
  for (const Term& term : p.terms) {
    if (term.coeff % c == 0) {
      q.terms.push_back(Term{term.atoms, term.coeff / c});
    } else {
      r.terms.push_back(term);
    }
  }
  if (r.IsConstant())
    return FromPolynomial(AddPolynomials(q, ConstantPolynomial(t, FloorDiv(r.constant, c))));
  const ConstIntBound br =
      DecisiveBound(r, [c](const ConstIntBound& b) { return SameBlock(b, c); });
  if (SameBlock(br, c)) {
    return FromPolynomial(AddPolynomials(q, ConstantPolynomial(t, FloorDiv(br.min_value, c))));
  }
  // The remainder is evaluated on its own below: it must fit (it does when it is all of a).
  if (r.terms.size() != p.terms.size() && !Fits(r)) {
    return MakeBinary(trunc ? NodeKind::kDiv : NodeKind::kFloorDiv, a, ir::IntImm(t, c));
  }
  // The remainder's constant goes into [0, c): floordiv(x + 5, 4) == floordiv(x + 1, 4) + 1.
  if (const int64_t k = FloorDiv(r.constant, c); k != 0) {
    Polynomial shifted = r;
    shifted.constant -= k * c;
    if (Fits(shifted)) {
      r = std::move(shifted);
      q.constant = k;
    }
  }
  if (const int64_t g = CommonFactor(r, c); g > 1) {
    r = DivideExactly(r, g);
    c /= g;
  }
  // floordiv(floordiv(x, c1), c) == floordiv(x, c1 * c) for positive divisors (trunc alike).
  if (r.terms.size() == 1 && r.constant == 0 && r.terms[0].coeff == 1 &&
      r.terms[0].atoms.size() == 1 && depth < kMaxDivisionDepth) {
    const Expr& atom = r.terms[0].atoms[0];
    const auto* floor_div = atom.as<ir::FloorDivNode>();
    const auto* trunc_div = atom.as<ir::DivNode>();
    int64_t c1;
    if ((floor_div || trunc_div) && ConstDivisor(floor_div ? floor_div->b : trunc_div->b, &c1) &&
        c1 > 0 && Wide{c1} * c <= TypeMax(t)) {
      const Expr& x = floor_div ? floor_div->a : trunc_div->a;
      const bool inner_trunc = trunc_div != nullptr;
      if (!inner_trunc || Bound(x).min_value >= 0) {
        const Expr inner = DivByConstant(x, c1 * c, inner_trunc, depth + 1);
        return FromPolynomial(AddPolynomials(q, ToPolynomial(inner)));
      }
    }
  }
  const Expr divisor = ir::IntImm(t, c);
  const Expr residual = trunc && Bound(r).min_value >= 0 ? ir::Div(FromPolynomial(r), divisor)
                                                         : ir::FloorDiv(FromPolynomial(r), divisor);
  return FromPolynomial(AddPolynomials(q, AtomPolynomial(residual)));
}

// floormod(a, c) for c > 0 (truncmod when trunc, for a >= 0): multiples of c drop out; the rest is
// decided by its bound or modular set, or reduced.
Expr Simplifier::ModByConstant(const Expr& a, int64_t c, bool trunc, int depth) {
  const DataType t = a.dtype();
  const Polynomial p = ToPolynomial(a);
  Polynomial r{t, {}, p.constant};
  for (const Term& term : p.terms) {
    if (term.coeff % c != 0) r.terms.push_back(term);
  }
  if (r.IsConstant()) return ir::IntImm(t, FloorMod(r.constant, c));
  auto decided = [&](const Polynomial& rem) -> Expr {
    const ConstIntBound b =
        DecisiveBound(rem, [c](const ConstIntBound& x) { return SameBlock(x, c); });
    if (!SameBlock(b, c)) return Expr();
    const int64_t shift = FloorDiv(b.min_value, c) * c;
    return FromPolynomial(SubPolynomials(rem, ConstantPolynomial(t, shift)));
  };
  if (Expr e = decided(r); e.defined()) return e;
  const ModularSet m = Modular(a);
  if (m.coeff % c == 0) return ir::IntImm(t, FloorMod(m.base, c));
  // Coefficients of magnitude c or more reduce into [0, c): floormod(x*5, 4) == floormod(x, 4).
  bool reduced = false;
  for (Term& term : r.terms) {
    if (term.coeff >= c || term.coeff <= -c) {
      term.coeff = FloorMod(term.coeff, c);
      reduced = true;
    }
  }
  if (reduced) {
    if (Expr e = decided(r); e.defined()) return e;
  }
  // The remainder is evaluated on its own below: it must fit (it does when it is all of a).
  if ((reduced || r.terms.size() != p.terms.size()) && !Fits(r)) {
    return MakeBinary(trunc ? NodeKind::kMod : NodeKind::kFloorMod, a, ir::IntImm(t, c));
  }
  // The constant reduces into [0, c): floormod(x + 5, 4) == floormod(x + 1, 4).
  if (Polynomial shifted = r;
      (shifted.constant = FloorMod(r.constant, c)) != r.constant && Fits(shifted)) {
    r = std::move(shifted);
  }
  // floormod(g*x, g*c) == g * floormod(x, c).
  if (const int64_t g = CommonFactor(r, c); g > 1 && depth < kMaxDivisionDepth) {
    const Expr inner = ModByConstant(FromPolynomial(DivideExactly(r, g)), c / g, trunc, depth + 1);
    return FromPolynomial(ScalePolynomial(ToPolynomial(inner), g));
  }
  // floormod(floormod(x, c1), c) == floormod(x, c) when c divides c1 (truncmod alike).
  if (r.terms.size() == 1 && r.constant == 0 && r.terms[0].coeff == 1 &&
      r.terms[0].atoms.size() == 1 && depth < kMaxDivisionDepth) {
    const Expr& atom = r.terms[0].atoms[0];
    const auto* floor_mod = atom.as<ir::FloorModNode>();
    const auto* trunc_mod = atom.as<ir::ModNode>();
    int64_t c1;
    if ((floor_mod || trunc_mod) && ConstDivisor(floor_mod ? floor_mod->b : trunc_mod->b, &c1) &&
        c1 % c == 0) {
      const Expr& x = floor_mod ? floor_mod->a : trunc_mod->a;
      if (floor_mod || Bound(x).min_value >= 0)
        return ModByConstant(x, c, trunc_mod != nullptr, depth + 1);
    }
  }
  const Expr arg = FromPolynomial(r);
  const Expr divisor = ir::IntImm(t, c);
  return trunc && Bound(r).min_value >= 0 ? ir::Mod(arg, divisor) : ir::FloorMod(arg, divisor);
}

// Division by a monomial m (coefficient 1): floordiv(m*q + r, m) == q + floordiv(r, m).
Expr Simplifier::DivisionBySymbol(NodeKind kind, const Expr& a, const Expr& b) {
  const bool is_div = kind == NodeKind::kDiv || kind == NodeKind::kFloorDiv;
  const bool trunc = kind == NodeKind::kDiv || kind == NodeKind::kMod;
  const DataType t = a.dtype();
  const Polynomial pb = ToPolynomial(b);
  if (pb.terms.size() != 1 || pb.constant != 0 || pb.terms[0].coeff != 1) return Expr();
  const std::vector<Expr>& m = pb.terms[0].atoms;
  const Polynomial pa = ToPolynomial(a);
  Polynomial q{t, {}, 0}, r{t, {}, pa.constant};
  for (const Term& term : pa.terms) {
    // term.atoms minus m, when m is a sub-multiset of it (both sorted).
    std::vector<Expr> rest;
    size_t j = 0;
    for (const Expr& atom : term.atoms) {
      if (j < m.size() && ExprEqual(atom, m[j])) {
        ++j;
      } else {
        rest.push_back(atom);
      }
    }
    if (j < m.size()) {
      r.terms.push_back(term);
    } else if (rest.empty()) {
      q = AddPolynomials(q, ConstantPolynomial(t, term.coeff));
    } else {
      q = AddPolynomials(q, Polynomial{t, {Term{std::move(rest), term.coeff}}, 0});
    }
  }
  if (q.IsConstant() && q.constant == 0) return Expr();
  if (r.IsConstant() && r.constant == 0) return is_div ? FromPolynomial(q) : ir::IntImm(t, 0);
  if (trunc || !Fits(r)) return Expr();  // the remainder's sign would matter
  const Expr rest = SimplifyDivision(kind, FromPolynomial(r), b);
  if (!is_div) return rest;
  return FromPolynomial(AddPolynomials(q, ToPolynomial(rest)));
}

}  // namespace tessel::arith::internal
