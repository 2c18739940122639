#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/expr.h"

// The canonical form of integer sums and products (private to compiler/arith): a polynomial
//   constant + sum_k coeff_k * (atom_k1 * atom_k2 * ...)
// over atoms, where an atom is any expression that is not an integer immediate, Add, Sub or Mul
// (a variable, a division, a min, a load, ...).
//
// Guarantees:
// - coefficients and the constant are kept wrapped to the type's width, so the polynomial equals
//   the expression it came from in the ring of integers modulo 2^bits: valid for every integer
//   type, with or without overflow;
// - for index types (int32, int64) the analyses read a polynomial's exact value as the value of
//   its expression (node.h: no overflow). A polynomial whose coefficient or constant arithmetic
//   left the type is marked `wrapped`: its exact value may differ from the expression's, so it is
//   never reasoned about, and ToPolynomial keeps such a sum or product as an atom;
// - terms are sorted by their atom lists (expr_compare.h order), each monomial appears once and no
//   coefficient is zero, so structurally equal polynomials print the same;
// - products distribute while the result has at most kMaxProductTerms terms and, written out as
//   a tree, at most kMaxProductNodes nodes; a larger product stays a single opaque atom (a Mul of
//   the two canonical factors, in a fixed order). Distribution copies each factor's atoms into
//   several terms; the node cap keeps chains of products from growing exponentially.
namespace tessel::arith::internal {

struct Term {
  std::vector<ir::Expr> atoms;  // sorted; repeated atoms are powers
  int64_t coeff;
};

struct Polynomial {
  ir::DataType dtype;
  std::vector<Term> terms;
  int64_t constant = 0;
  bool wrapped = false;  // index types only: a coefficient computation overflowed

  bool IsConstant() const { return terms.empty(); }
};

inline constexpr size_t kMaxProductTerms = 16;
inline constexpr size_t kMaxProductNodes = 256;

// Orders atom lists: lexicographically by CompareExpr, a proper prefix first.
int CompareMonomial(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b);

Polynomial ConstantPolynomial(ir::DataType dtype, int64_t value);
Polynomial AtomPolynomial(const ir::Expr& atom);
Polynomial AddPolynomials(const Polynomial& a, const Polynomial& b);
Polynomial SubPolynomials(const Polynomial& a, const Polynomial& b);
Polynomial ScalePolynomial(const Polynomial& a, int64_t factor);
Polynomial MulPolynomials(const Polynomial& a, const Polynomial& b);

// Reads an integer scalar expression's Add/Sub/Mul/immediate spine; every other node is an atom
// taken as it is (callers simplify atoms first).
Polynomial ToPolynomial(const ir::Expr& e);

// The expression of p: positive terms first in term order, then the negative terms subtracted,
// the constant last ("x*4 + y - z*2 + 3"); with no positive term the constant leads ("3 - x").
// Coefficients of unsigned types read as negative from 2^(bits-1) up.
ir::Expr FromPolynomial(const Polynomial& p);

// The coefficient c of type t read as a signed number (see FromPolynomial).
int64_t SignedCoefficient(ir::DataType t, int64_t c);

}  // namespace tessel::arith::internal
