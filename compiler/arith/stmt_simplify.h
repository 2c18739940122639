#pragma once

#include "compiler/arith/analyzer.h"
#include "compiler/ir/stmt.h"

// Statement-level simplification: every expression of a statement simplified with the facts its
// enclosing statements establish, and statements that provably do nothing removed.
//
// Takes any statement; returns one with exactly the same effects (stores, asserts, impure calls,
// in the same order) for every execution. What changes:
// - each For binds its variable to [min, min + extent) for its body; a For whose extent is 1 (and
//   that is not a thread binding) becomes its body with the variable replaced by min;
// - thread_extent and virtual_thread attributes bind their IterVar's variable to [0, value);
// - a LetStmt binds its variable's facts; one whose value is an immediate or a variable is
//   inlined, and one whose variable is unused (with a pure value) is dropped;
// - an IfThenElse whose condition is provable keeps only the branch taken; an AssertStmt whose
//   condition is provably true keeps only its body;
// - Evaluate of a pure expression, empty sequences, and loops, ifs, allocations and attributes
//   whose bodies do nothing are removed; a statement that does nothing at all comes back as an
//   empty SeqStmt.
// Facts already bound in `analyzer` (e.g. a function's parameters) hold throughout; the analyzer
// is left as it was.
namespace tessel::arith {

ir::Stmt Simplify(const ir::Stmt& s);
ir::Stmt Simplify(const ir::Stmt& s, Analyzer* analyzer);

}  // namespace tessel::arith
