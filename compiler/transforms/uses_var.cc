#include "compiler/transforms/uses_var.h"

#include "compiler/ir/visitor.h"

namespace tessel::transforms {
namespace {

// Stops descending once a use is found.
class UseFinder : public ir::IRVisitor {
 public:
  explicit UseFinder(const VarSet& vars) : vars_(vars) {}
  bool found() const { return found_; }

  void VisitExpr(const ir::Expr& e) override {
    if (!found_) ir::IRVisitor::VisitExpr(e);
  }
  void VisitStmt(const ir::Stmt& s) override {
    if (!found_) ir::IRVisitor::VisitStmt(s);
  }

 protected:
  void Visit_(const ir::VarNode* op) override { Note(op); }
  void Visit_(const ir::BufferLoadNode* op) override {
    Note(op->buffer->data.get());
    ir::IRVisitor::Visit_(op);
  }
  void Visit_(const ir::BufferStoreNode* op) override {
    Note(op->buffer->data.get());
    ir::IRVisitor::Visit_(op);
  }

 private:
  void Note(const ir::VarNode* v) {
    if (vars_.count(v)) found_ = true;
  }

  const VarSet& vars_;
  bool found_ = false;
};

}  // namespace

bool UsesVar(const ir::Expr& e, const VarSet& vars) {
  if (vars.empty()) return false;
  UseFinder finder(vars);
  finder.VisitExpr(e);
  return finder.found();
}

bool UsesVar(const ir::Stmt& s, const VarSet& vars) {
  if (vars.empty()) return false;
  UseFinder finder(vars);
  finder.VisitStmt(s);
  return finder.found();
}

bool DataEscapes(const ir::Stmt& s, const ir::VarNode* data) {
  bool escapes = false;
  ir::PreOrderVisit(s, [&](const ir::Expr& e) {
    if (e.get() == data) escapes = true;
  });
  return escapes;
}

}  // namespace tessel::transforms
