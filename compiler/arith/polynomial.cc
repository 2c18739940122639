#include "compiler/arith/polynomial.h"

#include <algorithm>

#include "compiler/arith/expr_compare.h"
#include "compiler/arith/expr_query.h"
#include "compiler/arith/int_math.h"
#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::arith::internal {

using ir::DataType;
using ir::Expr;

int CompareMonomial(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t k = 0; k < n; ++k) {
    if (int c = CompareExpr(a[k], b[k])) return c;
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

namespace {

// a + b and a * b wrapped to t, noting in *wrapped when an index type's exact result left it.
int64_t CheckedAdd(DataType t, int64_t a, int64_t b, bool* wrapped) {
  const Wide exact = Wide{a} + b;
  if (IsIndexType(t) && (exact < TypeMin(t) || exact > TypeMax(t))) *wrapped = true;
  return WrapAdd(t, a, b);
}

int64_t CheckedMul(DataType t, int64_t a, int64_t b, bool* wrapped) {
  const Wide exact = Wide{a} * b;
  if (IsIndexType(t) && (exact < TypeMin(t) || exact > TypeMax(t))) *wrapped = true;
  return WrapMul(t, a, b);
}

}  // namespace

Polynomial ConstantPolynomial(DataType dtype, int64_t value) {
  return Polynomial{dtype, {}, WrapToType(dtype, value)};
}

Polynomial AtomPolynomial(const Expr& atom) {
  return Polynomial{atom.dtype(), {Term{{atom}, 1}}, 0};
}

Polynomial AddPolynomials(const Polynomial& a, const Polynomial& b) {
  TESSEL_CHECK(a.dtype == b.dtype)
      << "adding polynomials of " << a.dtype.ToString() << " and " << b.dtype.ToString();
  Polynomial out{a.dtype, {}, 0, a.wrapped || b.wrapped};
  out.constant = CheckedAdd(a.dtype, a.constant, b.constant, &out.wrapped);
  out.terms.reserve(a.terms.size() + b.terms.size());
  size_t i = 0, j = 0;
  while (i < a.terms.size() || j < b.terms.size()) {
    const int c = i == a.terms.size()   ? 1
                  : j == b.terms.size() ? -1
                                        : CompareMonomial(a.terms[i].atoms, b.terms[j].atoms);
    if (c < 0) {
      out.terms.push_back(a.terms[i++]);
    } else if (c > 0) {
      out.terms.push_back(b.terms[j++]);
    } else {
      const int64_t coeff = CheckedAdd(a.dtype, a.terms[i].coeff, b.terms[j].coeff, &out.wrapped);
      if (coeff != 0) out.terms.push_back(Term{a.terms[i].atoms, coeff});
      ++i;
      ++j;
    }
  }
  return out;
}

Polynomial ScalePolynomial(const Polynomial& a, int64_t factor) {
  Polynomial out{a.dtype, {}, 0, a.wrapped};
  out.constant = CheckedMul(a.dtype, a.constant, factor, &out.wrapped);
  for (const Term& t : a.terms) {
    const int64_t coeff = CheckedMul(a.dtype, t.coeff, factor, &out.wrapped);
    if (coeff != 0) out.terms.push_back(Term{t.atoms, coeff});
  }
  return out;
}

Polynomial SubPolynomials(const Polynomial& a, const Polynomial& b) {
  return AddPolynomials(a, ScalePolynomial(b, -1));
}

Polynomial MulPolynomials(const Polynomial& a, const Polynomial& b) {
  if (a.IsConstant()) return ScalePolynomial(b, a.constant);
  if (b.IsConstant()) return ScalePolynomial(a, b.constant);
  const size_t na = a.terms.size() + (a.constant != 0);
  const size_t nb = b.terms.size() + (b.constant != 0);
  // Each term of the product holds one term of a and one of b.
  auto nodes = [](const Polynomial& p) {
    size_t n = 1;
    for (const Term& t : p.terms) {
      for (const Expr& atom : t.atoms) n += ExprSize(atom, kMaxProductNodes + 1) + 1;
    }
    return n;
  };
  if (na * nb > kMaxProductTerms || nb * nodes(a) + na * nodes(b) > kMaxProductNodes) {
    Expr x = FromPolynomial(a), y = FromPolynomial(b);
    if (CompareExpr(y, x) < 0) std::swap(x, y);
    return AtomPolynomial(ir::Mul(x, y));
  }
  Polynomial out = ConstantPolynomial(a.dtype, 0);
  out.wrapped = a.wrapped || b.wrapped;
  auto add_product = [&out](const std::vector<Expr>& x, const std::vector<Expr>& y, int64_t coeff) {
    if (coeff == 0) return;
    std::vector<Expr> atoms;
    atoms.reserve(x.size() + y.size());
    std::merge(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(atoms), ExprLess());
    out = AddPolynomials(out, Polynomial{out.dtype, {Term{std::move(atoms), coeff}}, 0});
  };
  bool wrapped = false;
  for (const Term& s : a.terms) {
    for (const Term& t : b.terms)
      add_product(s.atoms, t.atoms, CheckedMul(a.dtype, s.coeff, t.coeff, &wrapped));
    add_product(s.atoms, {}, CheckedMul(a.dtype, s.coeff, b.constant, &wrapped));
  }
  for (const Term& t : b.terms)
    add_product({}, t.atoms, CheckedMul(a.dtype, a.constant, t.coeff, &wrapped));
  out.constant = CheckedMul(a.dtype, a.constant, b.constant, &wrapped);
  out.wrapped = out.wrapped || wrapped;
  return out;
}

Polynomial ToPolynomial(const Expr& e) {
  const DataType t = e.dtype();
  if (const int64_t* v = ir::AsConstInt(e)) return ConstantPolynomial(t, *v);
  Polynomial p;
  if (const auto* op = e.as<ir::AddNode>()) {
    p = AddPolynomials(ToPolynomial(op->a), ToPolynomial(op->b));
  } else if (const auto* op = e.as<ir::SubNode>()) {
    p = SubPolynomials(ToPolynomial(op->a), ToPolynomial(op->b));
  } else if (const auto* op = e.as<ir::MulNode>()) {
    p = MulPolynomials(ToPolynomial(op->a), ToPolynomial(op->b));
  } else {
    return AtomPolynomial(e);
  }
  // A sum whose coefficients overflow stays as it is written.
  return p.wrapped ? AtomPolynomial(e) : p;
}

int64_t SignedCoefficient(DataType t, int64_t c) {
  if (!t.is_uint() || t.bits() >= 64) return c;
  const int64_t half = int64_t{1} << (t.bits() - 1);
  return c >= half ? c - 2 * half : c;
}

namespace {

Expr Monomial(const Term& term, DataType t, int64_t magnitude) {
  Expr m = term.atoms[0];
  for (size_t k = 1; k < term.atoms.size(); ++k) m = ir::Mul(m, term.atoms[k]);
  if (magnitude != 1) m = ir::Mul(m, ir::IntImm(t, magnitude));
  return m;
}

}  // namespace

Expr FromPolynomial(const Polynomial& p) {
  const DataType t = p.dtype;
  // A coefficient whose negation wraps to itself (the type's minimum) counts as positive.
  auto negative = [t](int64_t c) { return SignedCoefficient(t, c) < 0 && WrapSub(t, 0, c) != c; };
  Expr out;
  for (const Term& term : p.terms) {
    if (negative(term.coeff)) continue;
    Expr m = Monomial(term, t, term.coeff);
    out = out.defined() ? ir::Add(out, m) : m;
  }
  const bool constant_leads = !out.defined();
  if (constant_leads) out = ir::IntImm(t, p.constant);
  for (const Term& term : p.terms) {
    if (negative(term.coeff)) out = ir::Sub(out, Monomial(term, t, WrapSub(t, 0, term.coeff)));
  }
  if (constant_leads || p.constant == 0) return out;
  if (negative(p.constant)) return ir::Sub(out, ir::IntImm(t, WrapSub(t, 0, p.constant)));
  return ir::Add(out, ir::IntImm(t, p.constant));
}

}  // namespace tessel::arith::internal
