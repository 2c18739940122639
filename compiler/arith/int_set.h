#pragma once

#include <string>
#include <unordered_map>

#include "compiler/ir/expr.h"

// Integer sets with symbolic ends, for bound inference: the set of values an index expression
// covers while its variables range over sets of their own.
//
// An IntSet is one of: Nothing (empty), Everything, or an inclusive interval [min, max] whose ends
// are integer expressions (a single point has min == max); an undefined end is unbounded. The
// ends may mention variables that are not being ranged over (outer loop variables, shape
// parameters): they are fixed while the set is evaluated.
//
// Guarantees of EvalSet(e, dom, analyzer): for every assignment that gives each variable in dom a
// value inside its set (and the analyzer's bound facts hold), the value of e lies in the result;
// for a vector e, every lane's does. Ends come back simplified by the analyzer. The result is
// exact for sums, differences and scaling by constants of independent variables; where a
// variable occurs more than once it may over-approximate. int32 and int64 arithmetic is taken not
// to overflow (node.h); other integer types give Everything unless e does not depend on dom, and
// non-integer expressions give Everything. An end that is an immediate is computed exactly: one
// that would leave the type (the domain's extremes overflow) is left unbounded instead, as is an
// end that would grow past a fixed size.
namespace tessel::arith {

class Analyzer;

class IntSet {
 public:
  // Everything.
  IntSet() = default;

  static IntSet Everything() { return IntSet(); }
  static IntSet Nothing();
  static IntSet Single(ir::Expr value);
  // [min, max], inclusive; an undefined end is unbounded.
  static IntSet Interval(ir::Expr min, ir::Expr max);
  // [range.min, range.min + range.extent - 1].
  static IntSet FromRange(const ir::Range& range);

  bool IsNothing() const { return nothing_; }
  bool IsEverything() const { return !nothing_ && !min_.defined() && !max_.defined(); }
  // Both ends defined and the same expression (structurally).
  bool IsSinglePoint() const;
  bool HasLowerBound() const { return !nothing_ && min_.defined(); }
  bool HasUpperBound() const { return !nothing_ && max_.defined(); }
  // The ends (undefined when unbounded, and for Nothing).
  const ir::Expr& min() const { return min_; }
  const ir::Expr& max() const { return max_; }

  // "[0, 63]", "[n, +inf)", "everything", "nothing".
  std::string ToString() const;

 private:
  ir::Expr min_, max_;
  bool nothing_ = false;
};

using IntSetMap = std::unordered_map<const ir::VarNode*, IntSet>;

// The smallest interval holding both sets / the interval of values in both (Nothing when the ends
// prove it empty).
IntSet Union(const IntSet& a, const IntSet& b, Analyzer& analyzer);
IntSet Intersect(const IntSet& a, const IntSet& b, Analyzer& analyzer);

// See the contract above. Variables not in dom stay symbolic (each is a single point).
IntSet EvalSet(const ir::Expr& e, const IntSetMap& dom, Analyzer& analyzer);

// A min/extent Range covering s; an unbounded end of s is taken from bound (the range the values
// are known to lie in, e.g. a tensor's shape). Extent is simplified; for Nothing it is 0.
ir::Range CoverRange(const IntSet& s, const ir::Range& bound, Analyzer& analyzer);
// The Range of a bounded set (min, max - min + 1). s must have both ends (a TESSEL_CHECK).
ir::Range ToRange(const IntSet& s, Analyzer& analyzer);

}  // namespace tessel::arith
