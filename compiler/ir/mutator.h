#pragma once

#include <unordered_map>
#include <vector>

#include "compiler/ir/stmt.h"

namespace tessel::ir {

// Rewrites expressions and statements bottom-up. MutateExpr/MutateStmt dispatch to one Mutate_
// overload per node, which receives the node and its handle (`self`). Each default mutates the
// children and returns `self` unchanged when no child changed, so untouched subtrees stay shared;
// otherwise it rebuilds the node with the node constructors of op.h (which require operand types
// to agree). Buffers, IterVars and reducers are kept as they are; their uses (indices, values,
// bounds) are mutated.
class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr MutateExpr(const Expr& e);
  virtual Stmt MutateStmt(const Stmt& s);

 protected:
#define TESSEL_X(name) virtual Expr Mutate_(const name##Node* op, const Expr& self);
  TESSEL_IR_EXPR_NODES(TESSEL_X)
#undef TESSEL_X
#define TESSEL_X(name) virtual Stmt Mutate_(const name##Node* op, const Stmt& self);
  TESSEL_IR_STMT_NODES(TESSEL_X)
#undef TESSEL_X

  // Mutates each element; sets *changed if any element changed.
  std::vector<Expr> MutateAll(const std::vector<Expr>& exprs, bool* changed);
};

// Replaces each use of a variable in the map by its expression. Keys are variable nodes (identity).
Expr Substitute(const Expr& e, const std::unordered_map<const VarNode*, Expr>& map);
Stmt Substitute(const Stmt& s, const std::unordered_map<const VarNode*, Expr>& map);

}  // namespace tessel::ir
