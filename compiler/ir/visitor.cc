#include "compiler/ir/visitor.h"

#include "compiler/support/check.h"

namespace tessel::ir {

void IRVisitor::VisitExpr(const Expr& e) {
  TESSEL_CHECK(e.defined()) << "visiting an undefined expression";
  switch (e.kind()) {
#define TESSEL_X(name)                               \
  case NodeKind::k##name:                            \
    Visit_(static_cast<const name##Node*>(e.get())); \
    return;
    TESSEL_IR_EXPR_NODES(TESSEL_X)
#undef TESSEL_X
    default:
      TESSEL_UNREACHABLE() << "statement kind " << NodeKindName(e.kind()) << " as expression";
  }
}

void IRVisitor::VisitStmt(const Stmt& s) {
  TESSEL_CHECK(s.defined()) << "visiting an undefined statement";
  switch (s.kind()) {
#define TESSEL_X(name)                               \
  case NodeKind::k##name:                            \
    Visit_(static_cast<const name##Node*>(s.get())); \
    return;
    TESSEL_IR_STMT_NODES(TESSEL_X)
#undef TESSEL_X
    default:
      TESSEL_UNREACHABLE() << "expression kind " << NodeKindName(s.kind()) << " as statement";
  }
}

void IRVisitor::Visit_(const IntImmNode*) {}
void IRVisitor::Visit_(const FloatImmNode*) {}
void IRVisitor::Visit_(const StringImmNode*) {}
void IRVisitor::Visit_(const VarNode*) {}
void IRVisitor::Visit_(const CastNode* op) { VisitExpr(op->value); }

#define TESSEL_X(name)                           \
  void IRVisitor::Visit_(const name##Node* op) { \
    VisitExpr(op->a);                            \
    VisitExpr(op->b);                            \
  }
TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X

void IRVisitor::Visit_(const NotNode* op) { VisitExpr(op->a); }

void IRVisitor::Visit_(const SelectNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->true_value);
  VisitExpr(op->false_value);
}

void IRVisitor::Visit_(const RampNode* op) {
  VisitExpr(op->base);
  VisitExpr(op->stride);
}

void IRVisitor::Visit_(const BroadcastNode* op) { VisitExpr(op->value); }

void IRVisitor::Visit_(const LetNode* op) {
  VisitExpr(op->value);
  VisitExpr(op->body);
}

void IRVisitor::Visit_(const CallNode* op) {
  for (const Expr& arg : op->args) VisitExpr(arg);
}

void IRVisitor::Visit_(const BufferLoadNode* op) {
  for (const Expr& index : op->indices) VisitExpr(index);
}

void IRVisitor::Visit_(const ProducerLoadNode* op) {
  for (const Expr& index : op->indices) VisitExpr(index);
}

void IRVisitor::Visit_(const ReduceNode* op) {
  for (const IterVar& iv : op->axis) {
    VisitExpr(iv->dom.min);
    VisitExpr(iv->dom.extent);
  }
  for (const Expr& source : op->source) VisitExpr(source);
  VisitExpr(op->condition);
}

void IRVisitor::Visit_(const LetStmtNode* op) {
  VisitExpr(op->value);
  VisitStmt(op->body);
}

void IRVisitor::Visit_(const AttrStmtNode* op) {
  if (op->value.defined()) VisitExpr(op->value);
  VisitStmt(op->body);
}

void IRVisitor::Visit_(const AssertStmtNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->body);
}

void IRVisitor::Visit_(const BufferStoreNode* op) {
  VisitExpr(op->value);
  for (const Expr& index : op->indices) VisitExpr(index);
}

void IRVisitor::Visit_(const BufferRealizeNode* op) {
  for (const Range& r : op->bounds) {
    VisitExpr(r.min);
    VisitExpr(r.extent);
  }
  VisitStmt(op->body);
}

void IRVisitor::Visit_(const AllocateNode* op) {
  for (const Expr& extent : op->buffer->shape) VisitExpr(extent);
  VisitStmt(op->body);
}

void IRVisitor::Visit_(const ForNode* op) {
  VisitExpr(op->min);
  VisitExpr(op->extent);
  VisitStmt(op->body);
}

void IRVisitor::Visit_(const IfThenElseNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->then_case);
  if (op->else_case.defined()) VisitStmt(op->else_case);
}

void IRVisitor::Visit_(const SeqStmtNode* op) {
  for (const Stmt& s : op->seq) VisitStmt(s);
}

void IRVisitor::Visit_(const EvaluateNode* op) { VisitExpr(op->value); }

namespace {

class PreOrder : public IRVisitor {
 public:
  PreOrder(const std::function<void(const Expr&)>& on_expr,
           const std::function<void(const Stmt&)>& on_stmt)
      : on_expr_(on_expr), on_stmt_(on_stmt) {}
  void VisitExpr(const Expr& e) override {
    if (on_expr_) on_expr_(e);
    IRVisitor::VisitExpr(e);
  }
  void VisitStmt(const Stmt& s) override {
    if (on_stmt_) on_stmt_(s);
    IRVisitor::VisitStmt(s);
  }

 private:
  const std::function<void(const Expr&)>& on_expr_;
  const std::function<void(const Stmt&)>& on_stmt_;
};

}  // namespace

void PreOrderVisit(const Stmt& root, const std::function<void(const Expr&)>& on_expr,
                   const std::function<void(const Stmt&)>& on_stmt) {
  PreOrder(on_expr, on_stmt).VisitStmt(root);
}

}  // namespace tessel::ir
