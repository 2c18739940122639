#pragma once

#include "compiler/ir/stmt.h"

namespace tessel::transforms {

// Loop partitioning: removes guards from the bulk of a loop.
//
// Takes: flattened IR (after storage_flatten and simplify). For each serial For loop over v in
// [min, min + extent) whose body holds IfThenElse(likely(c), then) statements (reached through
// For, LetStmt, AttrStmt and SeqStmt only, no else branch) where c is a conjunction of
// comparisons (a < b, a <= b, a > b, a >= b) that, for every value of the loops nested between v
// and the guard, holds for all v below some point p (each conjunct's upper bound over those
// loops is a*v + r with a a positive constant), the loop becomes
//   for (v, min, p - min) body'   -- every such guard replaced by its then branch
//   for (v', p, min + extent - p) body  -- the guards kept, fresh variables (RenewDefs)
// with p clamped into [min, min + extent]. Loops are partitioned outermost first; a guard is
// used by the outermost loop it can partition. Returns: IR of the same form computing the same
// values; loops with no such guard are unchanged.
ir::Stmt LoopPartition(const ir::Stmt& stmt);

}  // namespace tessel::transforms
