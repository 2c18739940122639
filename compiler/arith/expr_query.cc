#include "compiler/arith/expr_query.h"

#include "compiler/ir/visitor.h"

namespace tessel::arith::internal {
namespace {

class SideEffectFinder : public ir::IRVisitor {
 public:
  bool found = false;

 protected:
  void Visit_(const ir::CallNode* op) override {
    if (!ir::IntrinsicIsPure(op->op)) found = true;
    if (!found) IRVisitor::Visit_(op);
  }
};

class VarFinder : public ir::IRVisitor {
 public:
  explicit VarFinder(const std::function<bool(const ir::VarNode*)>& pred) : pred_(pred) {}
  bool found = false;

  void VisitExpr(const ir::Expr& e) override {
    if (!found) IRVisitor::VisitExpr(e);
  }

 protected:
  void Visit_(const ir::VarNode* op) override { found = found || pred_(op); }
  // A load's buffer variable is a use too, so the whole buffer, not only its indices, counts.
  void Visit_(const ir::BufferLoadNode* op) override {
    found = found || pred_(op->buffer->data.get());
    IRVisitor::Visit_(op);
  }

 private:
  const std::function<bool(const ir::VarNode*)>& pred_;
};

class Counter : public ir::IRVisitor {
 public:
  explicit Counter(size_t limit) : limit_(limit) {}
  size_t count = 0;

  void VisitExpr(const ir::Expr& e) override {
    if (count >= limit_) return;
    ++count;
    IRVisitor::VisitExpr(e);
  }

 private:
  size_t limit_;
};

}  // namespace

size_t ExprSize(const ir::Expr& e, size_t limit) {
  Counter counter(limit);
  counter.VisitExpr(e);
  return counter.count;
}

bool HasSideEffects(const ir::Expr& e) {
  SideEffectFinder finder;
  finder.VisitExpr(e);
  return finder.found;
}

bool UsesVar(const ir::Expr& e, const std::function<bool(const ir::VarNode*)>& pred) {
  VarFinder finder(pred);
  finder.VisitExpr(e);
  return finder.found;
}

}  // namespace tessel::arith::internal
