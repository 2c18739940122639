// Rules for Min and Max.
//
// Order: operands are put in a fixed order (an immediate last, otherwise by expr_compare.h's
// order), so min(y, x) and min(x, y) print alike; a provable order between them picks one; then
// structural rules (absorption, constants, division by a constant); then, for index types, terms
// common to both operands move out (min(x + z, y + z) == min(x, y) + z), and so does a common
// positive factor (min(x*4, y*4) == min(x, y)*4).
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

Expr Simplifier::SimplifyMinMax(NodeKind kind, Expr a, Expr b) {
  if (Expr folded = FoldBinary(kind, a, b); folded.defined()) return folded;
  const bool is_min = kind == NodeKind::kMin;
  const DataType t = a.dtype();
  if (ExprEqual(a, b) && Pure(b)) return a;
  if (!t.is_integer()) return MakeBinary(kind, a, b);
  // The fixed operand order first, so one orientation of each rule below suffices for constants.
  const bool a_const = ir::AsConstInt(a) != nullptr, b_const = ir::AsConstInt(b) != nullptr;
  if ((a_const && !b_const) || (a_const == b_const && CompareExpr(b, a) < 0)) std::swap(a, b);
  const bool pure = Pure(a) && Pure(b);
  if (pure) {
    if (const int order = ProveOrder(a, b); order != 0) return (order < 0) == is_min ? a : b;
    if (Expr r = MinMaxRules(kind, MakeBinary(kind, a, b)); r.defined()) return Resimplify(r);
  }
  if (IsIndexType(t) && pure) {
    const Polynomial pa = ToPolynomial(a), pb = ToPolynomial(b);
    Polynomial common{t, {}, pa.constant == pb.constant ? pa.constant : 0};
    for (const Term& x : pa.terms) {
      for (const Term& y : pb.terms) {
        if (x.coeff == y.coeff && CompareMonomial(x.atoms, y.atoms) == 0) common.terms.push_back(x);
      }
    }
    const Polynomial ra = SubPolynomials(pa, common), rb = SubPolynomials(pb, common);
    if ((!common.terms.empty() || common.constant != 0) && Fits(ra) && Fits(rb)) {
      const Expr inner = SimplifyMinMax(kind, FromPolynomial(ra), FromPolynomial(rb));
      return FromPolynomial(AddPolynomials(ToPolynomial(inner), common));
    }
    // A positive common factor moves out: min(x*4 + 4, y*8) == min(x + 1, y*2) * 4.
    int64_t g = Gcd(pa.constant, pb.constant).value_or(1);
    for (const Term& term : pa.terms) g = Gcd(g, term.coeff).value_or(1);
    for (const Term& term : pb.terms) g = Gcd(g, term.coeff).value_or(1);
    if (g > 1) {
      auto divide = [g](Polynomial p) {
        p.constant /= g;
        for (Term& term : p.terms) term.coeff /= g;
        return p;
      };
      const Expr inner =
          SimplifyMinMax(kind, FromPolynomial(divide(pa)), FromPolynomial(divide(pb)));
      return FromPolynomial(ScalePolynomial(ToPolynomial(inner), g));
    }
  }
  return MakeBinary(kind, a, b);
}

// Structural rules on e = min(a, b) or max(a, b) with pure operands; the result is re-simplified.
Expr Simplifier::MinMaxRules(NodeKind kind, const Expr& e) {
  using namespace pattern;  // NOLINT: the rule notation
  PVar x, y;
  PConst c1, c2;
  if (kind == NodeKind::kMin) {
    TESSEL_REWRITE(e, min(min(x, y), x), min(x, y));
    TESSEL_REWRITE(e, min(min(x, y), y), min(x, y));
    TESSEL_REWRITE(e, min(x, min(x, y)), min(x, y));
    TESSEL_REWRITE(e, min(y, min(x, y)), min(x, y));
    TESSEL_REWRITE(e, min(max(x, y), x), x);
    TESSEL_REWRITE(e, min(max(x, y), y), y);
    TESSEL_REWRITE(e, min(x, max(x, y)), x);
    TESSEL_REWRITE(e, min(y, max(x, y)), y);
    TESSEL_REWRITE(e, min(min(x, c1), c2), min(x, min(c1, c2)));
    TESSEL_REWRITE_IF(e, min(floordiv(x, c1), floordiv(y, c1)), floordiv(min(x, y), c1),
                      c1.value() > 0);
  } else {
    TESSEL_REWRITE(e, max(max(x, y), x), max(x, y));
    TESSEL_REWRITE(e, max(max(x, y), y), max(x, y));
    TESSEL_REWRITE(e, max(x, max(x, y)), max(x, y));
    TESSEL_REWRITE(e, max(y, max(x, y)), max(x, y));
    TESSEL_REWRITE(e, max(min(x, y), x), x);
    TESSEL_REWRITE(e, max(min(x, y), y), y);
    TESSEL_REWRITE(e, max(x, min(x, y)), x);
    TESSEL_REWRITE(e, max(y, min(x, y)), y);
    TESSEL_REWRITE(e, max(max(x, c1), c2), max(x, max(c1, c2)));
    TESSEL_REWRITE_IF(e, max(floordiv(x, c1), floordiv(y, c1)), floordiv(max(x, y), c1),
                      c1.value() > 0);
  }
  return Expr();
}

}  // namespace tessel::arith::internal
