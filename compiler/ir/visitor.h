#pragma once

#include <functional>

#include "compiler/ir/stmt.h"

namespace tessel::ir {

// Walks expressions and statements. VisitExpr/VisitStmt dispatch on the node kind to one Visit_
// overload per node (derived from node.h's list); each default visits the node's children in
// order, including the expressions inside loop bounds, buffer indices and realize bounds (not a
// buffer's own shape). Override the overloads of interest and call IRVisitor::Visit_ to keep
// walking below them.
class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void VisitExpr(const Expr& e);
  virtual void VisitStmt(const Stmt& s);

 protected:
#define TESSEL_X(name) virtual void Visit_(const name##Node* op);
  TESSEL_IR_EXPR_NODES(TESSEL_X) TESSEL_IR_STMT_NODES(TESSEL_X)
#undef TESSEL_X
};

// Calls fn on every expression and statement node below (and including) the root, parents first.
void PreOrderVisit(const Stmt& root, const std::function<void(const Expr&)>& on_expr,
                   const std::function<void(const Stmt&)>& on_stmt = nullptr);

}  // namespace tessel::ir
