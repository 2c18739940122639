#pragma once

#include <algorithm>
#include <cstdint>

#include "compiler/arith/analyzer.h"
#include "compiler/arith/analyzer_state.h"
#include "compiler/arith/polynomial.h"
#include "compiler/ir/expr.h"

// The rewrite simplifier behind Analyzer::Simplify (private to compiler/arith), split by rule
// family: simplifier.cc (dispatch, casts, select, let, calls, vectors), simplify_arith.cc (sums,
// products, division), simplify_compare.cc (comparisons and logic), simplify_minmax.cc.
//
// One pass, bottom-up: every node's operands are simplified first, then the node's rules run on
// the simplified operands. Impure calls are never dropped, duplicated or merged: a binary node
// with an impure operand is only folded (And/Or check for themselves). Rules whose result is a new
// compound expression simplify it again, out of a fixed budget per Simplify call, so a rule set
// that cycled would stop rather than loop. Analyzer::Simplify states what the result guarantees.
namespace tessel::arith::internal {

class Simplifier {
 public:
  Simplifier(Analyzer& analyzer, AnalyzerState& state) : analyzer_(analyzer), state_(state) {}

  ir::Expr Simplify(const ir::Expr& e);

 private:
  // Re-simplifications of rewritten subterms allowed per call.
  static constexpr int kResimplifyBudget = 512;

  ir::Expr Visit(const ir::Expr& e);
  // Simplifies a rule's freshly built result while the budget lasts.
  ir::Expr Resimplify(const ir::Expr& e);

  // ---- per node kind; operands already simplified ----
  ir::Expr SimplifyBinary(ir::NodeKind kind, const ir::Expr& a, const ir::Expr& b);
  ir::Expr SimplifyCast(ir::DataType dtype, const ir::Expr& value);
  ir::Expr SimplifySelect(const ir::Expr& c, const ir::Expr& t, const ir::Expr& f);
  ir::Expr SimplifyLet(const ir::LetNode* op);
  ir::Expr SimplifyCall(const ir::Expr& e);
  ir::Expr SimplifyReduce(const ir::Expr& e);
  ir::Expr SimplifyVectorBinary(ir::NodeKind kind, const ir::Expr& a, const ir::Expr& b);

  // simplify_arith.cc
  ir::Expr SimplifyArith(ir::NodeKind kind, const ir::Expr& a, const ir::Expr& b);
  ir::Expr SimplifyDivision(ir::NodeKind kind, const ir::Expr& a, const ir::Expr& b);
  ir::Expr DivisionByBounds(ir::NodeKind kind, const ir::Expr& a, const ir::Expr& b);
  ir::Expr DivByConstant(const ir::Expr& a, int64_t c, bool trunc, int depth);
  ir::Expr ModByConstant(const ir::Expr& a, int64_t c, bool trunc, int depth);
  ir::Expr DivisionBySymbol(ir::NodeKind kind, const ir::Expr& a, const ir::Expr& b);
  Polynomial MergeDivModPairs(Polynomial p);

  // simplify_compare.cc
  ir::Expr SimplifyCompare(ir::NodeKind kind, ir::Expr a, ir::Expr b);
  ir::Expr SimplifyAnd(const ir::Expr& a, const ir::Expr& b);
  ir::Expr SimplifyOr(const ir::Expr& a, const ir::Expr& b);
  ir::Expr SimplifyNot(const ir::Expr& a);
  ir::Expr MergeComparisons(bool is_and, const ir::Expr& a, const ir::Expr& b);

  // simplify_minmax.cc
  ir::Expr SimplifyMinMax(ir::NodeKind kind, ir::Expr a, ir::Expr b);
  ir::Expr MinMaxRules(ir::NodeKind kind, const ir::Expr& e);

  // ---- facts ----
  ConstIntBound Bound(const ir::Expr& e);
  // The bound of a polynomial from its atoms' bounds; for index types the exact interval,
  // unclipped (const_int_bound.h).
  ConstIntBound Bound(const Polynomial& p);
  // Whether p's exact value provably fits its type, so that a rule may evaluate p on its own as
  // the operand of a division, comparison or min/max: a part of an expanded polynomial can
  // overflow where the expression it came from did not.
  bool Fits(const Polynomial& p);
  ModularSet Modular(const ir::Expr& e);
  // Bound(p) tightened with the analyzer's symbolic ranges when it does not decide `decides`
  // (a predicate on bounds); only for index types.
  template <typename Decides>
  ConstIntBound DecisiveBound(const Polynomial& p, Decides decides);
  // -1 when a <= b is provable, 1 when a >= b is, 0 when neither (integer types).
  int ProveOrder(const ir::Expr& a, const ir::Expr& b);
  // Whether e has no impure call (intrinsic.h), so rules may drop or merge it. Cheap when the
  // whole expression being simplified is pure, as it almost always is.
  bool Pure(const ir::Expr& e);

  Analyzer& analyzer_;
  AnalyzerState& state_;
  int budget_ = kResimplifyBudget;
  bool impure_ = false;  // the expression being simplified has an impure call somewhere
};

template <typename Decides>
ConstIntBound Simplifier::DecisiveBound(const Polynomial& p, Decides decides) {
  ConstIntBound b = Bound(p);
  if (decides(b) || state_.symbolic_ranges == 0 || state_.in_symbolic_proof) return b;
  const ConstIntBound s = analyzer_.SymbolicBound(FromPolynomial(p));
  return {std::max(b.min_value, s.min_value), std::min(b.max_value, s.max_value)};
}

// Helpers shared by the rule files.
bool IsConstScalar(const ir::Expr& e, int64_t* value);
ir::Expr BoolImm(bool value, int lanes = 1);

}  // namespace tessel::arith::internal
