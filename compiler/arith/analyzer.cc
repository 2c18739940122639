#include "compiler/arith/analyzer.h"

#include <algorithm>

#include "compiler/arith/analyzer_state.h"
#include "compiler/arith/expr_compare.h"
#include "compiler/arith/expr_query.h"
#include "compiler/arith/int_math.h"
#include "compiler/arith/simplifier.h"
#include "compiler/ir/op.h"

namespace tessel::arith {

using internal::AnalyzerState;
using internal::VarFacts;
using ir::Expr;

namespace {

// How many times SymbolicBound bounds the bound it found (j in [0, i), i in [0, n): two rounds).
constexpr int kSymbolicRounds = 3;

ConstIntBound Clip(const ConstIntBound& b, ir::DataType t) {
  const ConstIntBound whole = ConstIntBound::OfType(t.element_of());
  return {std::clamp(b.min_value, whole.min_value, whole.max_value),
          std::clamp(b.max_value, whole.min_value, whole.max_value)};
}

}  // namespace

Analyzer::Analyzer() : state_(std::make_unique<AnalyzerState>()) {}
Analyzer::~Analyzer() = default;

void Analyzer::Bind(const ir::Var& var, const ir::Range& range) {
  auto as_var_type = [&var](const Expr& e) {
    return e.dtype() == var.dtype() ? e : ir::cast(var.dtype(), e);
  };
  const Expr min = Simplify(as_var_type(range.min)), extent = Simplify(as_var_type(range.extent));
  const arith::ConstIntBound bmin = ConstIntBound(min), bext = ConstIntBound(extent);
  VarFacts facts;
  int64_t lo = bmin.min_value;
  int64_t hi = internal::BoundSub(internal::BoundAdd(bmin.max_value, bext.max_value), 1);
  // An empty range binds a loop whose body never runs: any fact is true there.
  hi = std::max(hi, lo);
  if (internal::IsIntegerLike(var.dtype())) facts.bound = Clip({lo, hi}, var.dtype());
  if (ir::IsConstInt(extent, 1)) {
    facts.modular = ModularSet(min);
    facts.range = IntSet::Single(min);
  } else {
    facts.range = IntSet::Interval(min, Simplify(IntSet::FromRange({min, extent}).max()));
  }
  state_->Set(var.get(), std::move(facts));
}

void Analyzer::Bind(const ir::Var& var, const Expr& value) {
  const Expr v = Simplify(value);
  VarFacts facts;
  facts.value = v;
  if (internal::IsIntegerLike(v.dtype())) {
    facts.bound = ConstIntBound(v);
    facts.modular = ModularSet(v);
    if (v.dtype().is_scalar()) facts.range = IntSet::Single(v);
  }
  state_->Set(var.get(), std::move(facts));
}

void Analyzer::BindFacts(const ir::Var& var, const Expr& value) {
  const Expr v = Simplify(value);
  VarFacts facts;
  if (internal::IsIntegerLike(v.dtype())) {
    facts.bound = ConstIntBound(v);
    facts.modular = ModularSet(v);
    if (v.dtype().is_scalar()) facts.range = IntSet::Single(v);
  }
  state_->Set(var.get(), std::move(facts));
}

Expr Analyzer::Simplify(const Expr& e) {
  const Expr result = internal::Simplifier(*this, *state_).Simplify(e);
  if (!result.same_as(e) && internal::ExprEqual(result, e)) return e;
  return result;
}

bool Analyzer::CanProve(const Expr& condition) {
  int64_t value;
  return internal::IsConstScalar(Simplify(condition), &value) && value != 0;
}

bool Analyzer::CanProveGreaterEqual(const Expr& e, int64_t lower) {
  if (ConstIntBound(e).min_value >= lower) return true;
  const ir::DataType t = e.dtype().element_of();
  if (!internal::IsIntegerLike(t) || lower > internal::TypeMax(t)) return false;
  return CanProve(e >= ir::IntImm(t, lower));
}

bool Analyzer::CanProveLess(const Expr& e, int64_t upper) {
  if (ConstIntBound(e).max_value < upper) return true;
  const ir::DataType t = e.dtype().element_of();
  if (!internal::IsIntegerLike(t) || upper <= internal::TypeMin(t)) return false;
  return CanProve(e < ir::IntImm(t, upper));
}

bool Analyzer::CanProveEqual(const Expr& a, const Expr& b) { return CanProve(a == b); }

arith::ConstIntBound Analyzer::ConstIntBound(const Expr& e) {
  return EvalConstIntBound(e, state_->bounds);
}

arith::ModularSet Analyzer::ModularSet(const Expr& e) {
  return EvalModularSet(e, state_->modular, state_->bounds);
}

IntSet Analyzer::EvalSet(const Expr& e, const IntSetMap& dom) {
  return arith::EvalSet(e, dom, *this);
}

arith::ConstIntBound Analyzer::SymbolicBound(const Expr& e) {
  AnalyzerState& s = *state_;
  arith::ConstIntBound result = arith::ConstIntBound::Everything();
  if (s.in_symbolic_proof || s.symbolic_ranges == 0 || !internal::IsIndexType(e.dtype())) {
    return result;
  }
  // Only variables with symbolic ranges are relaxed to their ranges: the ends then mention the
  // variables those ranges mention (j in [0, n): j - n <= -1), and the constant bounds of what is
  // left finish the job. Relaxing n to its own range too would lose that j and n move together.
  IntSetMap symbolic;
  for (const auto& [var, range] : s.ranges) {
    auto is_symbolic = [](const Expr& end) { return end.defined() && !end.as<ir::IntImmNode>(); };
    if (is_symbolic(range.min()) || is_symbolic(range.max())) symbolic.emplace(var, range);
  }
  auto relaxable = [&symbolic](const ir::VarNode* v) { return symbolic.count(v) > 0; };
  if (!internal::UsesVar(e, relaxable)) return result;
  s.in_symbolic_proof = true;
  for (const bool upper : {false, true}) {
    Expr current = e;
    for (int round = 0; round < kSymbolicRounds; ++round) {
      const IntSet set = arith::EvalSet(current, symbolic, *this);
      if (set.IsNothing()) break;
      const Expr& end = upper ? set.max() : set.min();
      if (!end.defined()) break;
      const arith::ConstIntBound b = ConstIntBound(end);
      if (upper) {
        result.max_value = std::min(result.max_value, b.max_value);
      } else {
        result.min_value = std::max(result.min_value, b.min_value);
      }
      if (!internal::UsesVar(end, relaxable)) break;
      current = end;
    }
  }
  s.in_symbolic_proof = false;
  return result;
}

Analyzer::Scope::Scope(Analyzer* analyzer) : analyzer_(analyzer), mark_(analyzer->state_->Mark()) {}

Analyzer::Scope::Scope(Analyzer* analyzer, const ir::Var& var, const ir::Range& range)
    : Scope(analyzer) {
  analyzer->Bind(var, range);
}

Analyzer::Scope::~Scope() { analyzer_->state_->Restore(mark_); }

}  // namespace tessel::arith
