#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "compiler/ir/expr.h"

// Constant-bound analysis: an interval [min_value, max_value] of int64 holding every value an
// integer expression can take, given intervals for its variables.
//
// Guarantees, for an expression e and a map of variable bounds that hold:
// - every value e evaluates to lies in EvalConstIntBound(e, vars); the bound is never empty;
// - INT64_MIN and INT64_MAX are -inf and +inf: an end at them means "unbounded on that side";
// - int32 and int64 arithmetic is taken not to overflow (node.h's rule for index expressions):
//   sums, differences and products are bounded exactly, without clipping, so a sum stays soundly
//   bounded when its parts overflow and it does not (as in the simplifier's expanded
//   polynomials); every other node's operands, and the result, are clipped to the type (an
//   interval wholly outside the type gives the whole type). Every other integer type wraps, and
//   its bound widens to the whole type wherever wrapping could happen;
// - bool expressions (comparisons, And/Or/Not) are bounded within [0, 1], and decided when the
//   operands' bounds decide them; a vector's bound is the union over its lanes;
// - variables absent from the map, loads and opaque calls range over their whole type; a
//   non-integer expression gets [-inf, +inf].
namespace tessel::arith {

struct ConstIntBound {
  static constexpr int64_t kPosInf = INT64_MAX;
  static constexpr int64_t kNegInf = INT64_MIN;

  int64_t min_value = kNegInf;
  int64_t max_value = kPosInf;

  static ConstIntBound Everything() { return {kNegInf, kPosInf}; }
  static ConstIntBound Point(int64_t value) { return {value, value}; }
  // The values of an integer or bool scalar type.
  static ConstIntBound OfType(ir::DataType dtype);

  bool IsPoint() const {
    return min_value == max_value && min_value != kNegInf && min_value != kPosInf;
  }
  bool Contains(int64_t v) const { return min_value <= v && v <= max_value; }
  bool operator==(const ConstIntBound& other) const {
    return min_value == other.min_value && max_value == other.max_value;
  }
  // "[0, 63]", "[-inf, 5]".
  std::string ToString() const;
};

using ConstIntBoundMap = std::unordered_map<const ir::VarNode*, ConstIntBound>;

ConstIntBound EvalConstIntBound(const ir::Expr& e, const ConstIntBoundMap& vars);

}  // namespace tessel::arith
