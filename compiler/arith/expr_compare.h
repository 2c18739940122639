#pragma once

#include "compiler/ir/expr.h"

// A structural total order on expressions (private to compiler/arith). The simplifier sorts the
// terms of a sum and the operands of min/max by it, so equal expressions come out in one layout.
//
// - CompareExpr(a, b) is 0 exactly when a and b are structurally equal: same node kinds, types and
//   fields, the same variables (by identity), buffers, producers and reducers (by identity).
// - The order is deterministic across runs for expressions whose variables have distinct names:
//   variables order by name, then type; only distinct variables sharing a name and type fall back
//   to their addresses.
// - Immediates order before variables, variables before compound nodes (node.h's list order).
namespace tessel::arith::internal {

int CompareExpr(const ir::Expr& a, const ir::Expr& b);

inline bool ExprEqual(const ir::Expr& a, const ir::Expr& b) {
  return a.same_as(b) || CompareExpr(a, b) == 0;
}

struct ExprLess {
  bool operator()(const ir::Expr& a, const ir::Expr& b) const { return CompareExpr(a, b) < 0; }
};

}  // namespace tessel::arith::internal
