#pragma once

#include <cstddef>
#include <functional>

#include "compiler/ir/expr.h"

// Questions about an expression's contents (private to compiler/arith).
namespace tessel::arith::internal {

// Whether e contains a call to an impure intrinsic (intrinsic.h): such an expression may not be
// dropped or duplicated.
bool HasSideEffects(const ir::Expr& e);

// The number of nodes of e as a tree (a shared subexpression counts at each use), counting no
// further than limit.
size_t ExprSize(const ir::Expr& e, size_t limit);

// Whether e mentions a variable for which pred holds.
bool UsesVar(const ir::Expr& e, const std::function<bool(const ir::VarNode*)>& pred);

}  // namespace tessel::arith::internal
