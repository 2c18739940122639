#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "compiler/arith/const_int_bound.h"
#include "compiler/ir/expr.h"

// Modular-set analysis: every value of an integer expression has the form coeff * k + base for
// some integer k.
//
// Guarantees, for an expression e and maps of variable facts that hold:
// - every value v of e satisfies v == base (coeff 0: e is the constant base) or
//   (v - base) % coeff == 0 (coeff > 0); coeff is never negative and, when positive,
//   0 <= base < coeff; coeff 1 says nothing;
// - int32 and int64 arithmetic is taken not to overflow (node.h); expressions of other integer
//   types get a fact only when they are constants or variables with a recorded fact;
// - a vector's fact holds for every lane; the bound map is used to decide the sign of the dividend
//   of truncating division.
namespace tessel::arith {

struct ModularSet {
  int64_t coeff = 1;
  int64_t base = 0;

  static ModularSet Everything() { return {1, 0}; }
  static ModularSet Constant(int64_t value) { return {0, value}; }
  // coeff * k + base with base reduced into [0, |coeff|).
  static ModularSet Make(int64_t coeff, int64_t base);

  bool IsEverything() const { return coeff == 1; }
  bool IsConstant() const { return coeff == 0; }
  bool Contains(int64_t v) const;
  bool operator==(const ModularSet& other) const {
    return coeff == other.coeff && base == other.base;
  }
  // "4k+1", "3" (a constant), "k" (everything).
  std::string ToString() const;
};

using ModularSetMap = std::unordered_map<const ir::VarNode*, ModularSet>;

ModularSet EvalModularSet(const ir::Expr& e, const ModularSetMap& vars,
                          const ConstIntBoundMap& bounds);

}  // namespace tessel::arith
