#pragma once

#include <concepts>
#include <cstdint>

#include "compiler/arith/constant_fold.h"
#include "compiler/arith/expr_compare.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/op.h"

// A compact notation for rewrite rules (private to compiler/arith). Patterns are built from
// pattern variables with the usual operators and read like the IR they match:
//
//   PVar x, y;
//   PConst c1, c2;
//   TESSEL_REWRITE(e, min(min(x, c1), c2), min(x, min(c1, c2)));
//   TESSEL_REWRITE_IF(e, min(x * c1, y * c1), min(x, y) * c1, c1.value() > 0);
//
// Matching is structural. A PVar matches any expression; a second occurrence in one pattern must
// match a structurally equal expression (expr_compare.h). A PConst matches an integer immediate.
// Every match starts with all variables unbound. The result side rebuilds nodes with
// MakeBinary (constant_fold.h), so immediates fold and nothing else is rewritten; both sides of
// a rule must keep operand types equal, which matching guarantees for the variables.
namespace tessel::arith::internal::pattern {

struct PatternTag {};

template <typename T>
concept Pattern = std::derived_from<T, PatternTag>;

// Any expression.
class PVar : public PatternTag {
 public:
  using Held = const PVar&;  // composite patterns refer to the rule's variable
  void Reset() const { value_ = ir::Expr(); }
  bool Match(const ir::Expr& e) const {
    if (!value_.defined()) {
      value_ = e;
      return true;
    }
    return ExprEqual(value_, e);
  }
  ir::Expr Eval() const { return value_; }
  const ir::Expr& value() const { return value_; }

 private:
  mutable ir::Expr value_;
};

// An integer immediate.
class PConst : public PatternTag {
 public:
  using Held = const PConst&;
  void Reset() const { value_ = ir::Expr(); }
  bool Match(const ir::Expr& e) const {
    if (!e.as<ir::IntImmNode>()) return false;
    if (!value_.defined()) {
      value_ = e;
      return true;
    }
    return ExprEqual(value_, e);
  }
  ir::Expr Eval() const { return value_; }
  int64_t value() const { return value_.as<ir::IntImmNode>()->value; }

 private:
  mutable ir::Expr value_;
};

// One fixed expression, e.g. the bool immediate true.
class PLiteral : public PatternTag {
 public:
  using Held = PLiteral;
  explicit PLiteral(ir::Expr value) : value_(std::move(value)) {}
  void Reset() const {}
  bool Match(const ir::Expr& e) const { return ExprEqual(value_, e); }
  ir::Expr Eval() const { return value_; }

 private:
  ir::Expr value_;
};

template <ir::NodeKind K, Pattern A, Pattern B>
class PBinary : public PatternTag {
 public:
  using Held = PBinary;
  PBinary(const A& a, const B& b) : a_(a), b_(b) {}
  void Reset() const {
    a_.Reset();
    b_.Reset();
  }
  bool Match(const ir::Expr& e) const {
    const auto* op = e.as<ir::BinaryNode<K>>();
    return op && a_.Match(op->a) && b_.Match(op->b);
  }
  ir::Expr Eval() const { return MakeBinary(K, a_.Eval(), b_.Eval()); }

 private:
  typename A::Held a_;
  typename B::Held b_;
};

template <Pattern A>
class PNot : public PatternTag {
 public:
  using Held = PNot;
  explicit PNot(const A& a) : a_(a) {}
  void Reset() const { a_.Reset(); }
  bool Match(const ir::Expr& e) const {
    const auto* op = e.as<ir::NotNode>();
    return op && a_.Match(op->a);
  }
  ir::Expr Eval() const {
    ir::Expr a = a_.Eval();
    if (const int64_t* v = ir::AsConstInt(a)) return ir::IntImm(a.dtype(), !*v);
    return ir::Not(a);
  }

 private:
  typename A::Held a_;
};

template <Pattern C, Pattern T, Pattern F>
class PSelect : public PatternTag {
 public:
  using Held = PSelect;
  PSelect(const C& c, const T& t, const F& f) : c_(c), t_(t), f_(f) {}
  void Reset() const {
    c_.Reset();
    t_.Reset();
    f_.Reset();
  }
  bool Match(const ir::Expr& e) const {
    const auto* op = e.as<ir::SelectNode>();
    return op && c_.Match(op->condition) && t_.Match(op->true_value) && f_.Match(op->false_value);
  }
  ir::Expr Eval() const { return ir::Select(c_.Eval(), t_.Eval(), f_.Eval()); }

 private:
  typename C::Held c_;
  typename T::Held t_;
  typename F::Held f_;
};

#define TESSEL_PATTERN_BINARY(function, kind)                          \
  template <Pattern A, Pattern B>                                      \
  PBinary<ir::NodeKind::kind, A, B> function(const A& a, const B& b) { \
    return {a, b};                                                     \
  }
TESSEL_PATTERN_BINARY(operator+, kAdd)
TESSEL_PATTERN_BINARY(operator-, kSub)
TESSEL_PATTERN_BINARY(operator*, kMul)
TESSEL_PATTERN_BINARY(operator<, kLT)
TESSEL_PATTERN_BINARY(operator<=, kLE)
TESSEL_PATTERN_BINARY(operator>, kGT)
TESSEL_PATTERN_BINARY(operator>=, kGE)
TESSEL_PATTERN_BINARY(operator==, kEQ)
TESSEL_PATTERN_BINARY(operator!=, kNE)
TESSEL_PATTERN_BINARY(operator&&, kAnd)
TESSEL_PATTERN_BINARY(operator||, kOr)
TESSEL_PATTERN_BINARY(min, kMin)
TESSEL_PATTERN_BINARY(max, kMax)
TESSEL_PATTERN_BINARY(floordiv, kFloorDiv)
TESSEL_PATTERN_BINARY(floormod, kFloorMod)
TESSEL_PATTERN_BINARY(truncdiv, kDiv)
TESSEL_PATTERN_BINARY(truncmod, kMod)
#undef TESSEL_PATTERN_BINARY

template <Pattern A>
PNot<A> operator!(const A& a) {
  return PNot<A>(a);
}

template <Pattern C, Pattern T, Pattern F>
PSelect<C, T, F> select(const C& c, const T& t, const F& f) {
  return {c, t, f};
}

// Unbinds every variable of p, then matches e.
template <Pattern P>
bool Matches(const P& p, const ir::Expr& e) {
  p.Reset();
  return p.Match(e);
}

}  // namespace tessel::arith::internal::pattern

// Returns rhs's value from the enclosing function when e matches the pattern lhs (and condition
// holds; the condition may read the pattern's variables).
#define TESSEL_REWRITE(e, lhs, rhs) \
  if (::tessel::arith::internal::pattern::Matches((lhs), (e))) return (rhs).Eval()
#define TESSEL_REWRITE_IF(e, lhs, rhs, condition) \
  if (::tessel::arith::internal::pattern::Matches((lhs), (e)) && (condition)) return (rhs).Eval()
