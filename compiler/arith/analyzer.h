#pragma once

#include <cstdint>
#include <memory>

#include "compiler/arith/const_int_bound.h"
#include "compiler/arith/int_set.h"
#include "compiler/arith/modular_set.h"
#include "compiler/ir/expr.h"

// The arithmetic facade: the one class other modules use to reason about and simplify integer
// expressions. It holds facts about variables (ranges, values) and answers with the constant-bound
// (const_int_bound.h), modular-set (modular_set.h) and interval-set (int_set.h) analyses and the
// rewrite simplifier.
//
// Semantics (node.h): int32 and int64 arithmetic is taken not to overflow, as C does for index
// expressions; every other integer type wraps and is reasoned about as wrapping; floats are only
// constant-folded, never reassociated. Facts are assumptions: a Bind that does not hold makes
// the answers meaningless, never unsafe to compute.
//
// Simplify(e) guarantees:
// - the result has e's type and the same value as e wherever the bound facts hold (and no index
//   arithmetic of e overflows);
// - the result's own sums and products may overflow in intermediate steps where e's do not (the
//   polynomial form regroups terms), but never the value of any operand of a division, modulo,
//   comparison, min, max or select: its value is exact under wrapping arithmetic (node.h), so a
//   backend must not mark index additions as non-wrapping;
// - calls to impure intrinsics are never dropped, duplicated or merged;
// - immediates fold exactly as op.h's operators fold them (integers wrap to their width);
// - integer sums and products come back in one canonical polynomial layout (equal polynomials
//   print the same: "(x + 2*y) - (y + x)" gives "y");
// - division and modulo by constants, comparisons, min/max, select, if_then_else and likely are
//   decided or reduced where the bound and modular facts allow; And/Or/Not fold; Let of a
//   constant or variable is inlined;
// - simplifying the result again gives it back unchanged (the fuzz test checks this);
// - work is polynomial in e's size: products distribute only up to a fixed number of terms and
//   nodes, and re-simplification of rewritten subterms has a fixed budget per call.
// A result structurally equal to e is e itself (same node).
//
// Variables are keyed by node identity, never by name.
namespace tessel::arith {

namespace internal {
class AnalyzerState;
class Simplifier;
}  // namespace internal

class Analyzer {
 public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // From now on (until the enclosing Scope ends) var ranges over [min, min + extent): the range of
  // a loop. min and extent may be symbolic; their constant bounds give var's, and proofs also use
  // the symbolic ends (i < n is provable for i in [0, n)).
  void Bind(const ir::Var& var, const ir::Range& range);
  // var equals value: Simplify replaces var by value (simplified), and var's facts are value's.
  // Each use then evaluates value, so an impure value repeats its effects.
  void Bind(const ir::Var& var, const ir::Expr& value);
  // var holds value's value but stays in the IR (a Let or LetStmt variable): var gets value's
  // constant bound, modular set and symbolic range, and Simplify keeps var as it is.
  void BindFacts(const ir::Var& var, const ir::Expr& value);

  ir::Expr Simplify(const ir::Expr& e);

  // Whether condition (a bool expression) holds for every value the facts allow. False means "not
  // proven", not "false".
  bool CanProve(const ir::Expr& condition);
  bool CanProveGreaterEqual(const ir::Expr& e, int64_t lower);
  bool CanProveLess(const ir::Expr& e, int64_t upper);
  bool CanProveEqual(const ir::Expr& a, const ir::Expr& b);

  arith::ConstIntBound ConstIntBound(const ir::Expr& e);
  arith::ModularSet ModularSet(const ir::Expr& e);
  // int_set.h's EvalSet with this analyzer's facts.
  IntSet EvalSet(const ir::Expr& e, const IntSetMap& dom);

  // Every Bind made on the analyzer while a Scope lives is undone when it ends (scopes nest).
  //   Analyzer::Scope loop(&analyzer, op->loop_var, {op->min, op->extent});
  class Scope {
   public:
    explicit Scope(Analyzer* analyzer);
    // Opens a scope and binds var to range in it: entering a loop.
    Scope(Analyzer* analyzer, const ir::Var& var, const ir::Range& range);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Analyzer* analyzer_;
    size_t mark_;
  };

 private:
  friend class internal::Simplifier;

  // A constant bound of e derived from the symbolic ranges of its variables (for i in [0, n),
  // i - n lies in [-inf, -1]); Everything when there is none to use. Never re-entered: the
  // simplification it does itself does not use it.
  arith::ConstIntBound SymbolicBound(const ir::Expr& e);

  std::unique_ptr<internal::AnalyzerState> state_;
};

}  // namespace tessel::arith
