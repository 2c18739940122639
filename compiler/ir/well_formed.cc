#include "compiler/ir/well_formed.h"

#include <absl/strings/str_cat.h>

#include <unordered_set>

#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"

namespace tessel::ir {
namespace {

class WellFormed : public IRVisitor {
 public:
  absl::Status Check(const PrimFunc& f) {
    for (const Var& p : f->params) Define(p.get(), "parameter");
    for (const Buffer& b : f->buffers) {
      if (!in_scope_.count(b->data.get())) {
        Fail(absl::StrCat("buffer ", b.name(), " is not a parameter of ", f->name));
      }
    }
    if (f->body.defined()) VisitStmt(f->body);
    return status_;
  }

 protected:
  void Visit_(const VarNode* op) override {
    if (!in_scope_.count(op)) Fail(absl::StrCat("variable ", op->name, " is used undefined"));
  }
  void Visit_(const LetNode* op) override {
    VisitExpr(op->value);
    Scoped(op->var.get(), "Let", [&] { VisitExpr(op->body); });
  }
  void Visit_(const BufferLoadNode* op) override {
    CheckAccess(op->buffer, op->indices.size(), "load from");
    IRVisitor::Visit_(op);
  }
  void Visit_(const ReduceNode* op) override {
    for (const IterVar& iv : op->axis) {
      VisitExpr(iv->dom.min);
      VisitExpr(iv->dom.extent);
    }
    std::vector<const VarNode*> bound;
    for (const IterVar& iv : op->axis) bound.push_back(iv->var.get());
    const CommReducerNode* c = op->combiner.get();
    for (size_t k = 0; k < c->lhs.size(); ++k) {
      bound.push_back(c->lhs[k].get());
      bound.push_back(c->rhs[k].get());
    }
    // The axes scope the sources and condition; the reducer's arguments scope its results. The
    // Reduce nodes of one multi-output compute share axes and reducer, so these bindings are
    // exempt from "defined once".
    for (const VarNode* v : bound) in_scope_.insert(v);
    for (const Expr& e : op->source) VisitExpr(e);
    VisitExpr(op->condition);
    for (const Expr& e : c->result) VisitExpr(e);
    for (const VarNode* v : bound) in_scope_.erase(v);
  }
  void Visit_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    Scoped(op->var.get(), "LetStmt", [&] { VisitStmt(op->body); });
  }
  void Visit_(const AttrStmtNode* op) override {
    if (op->value.defined()) VisitExpr(op->value);
    const auto* iv = dynamic_cast<const IterVarNode*>(op->node.get());
    if (iv && (op->key == attr::kThreadExtent || op->key == attr::kVirtualThread)) {
      Scoped(iv->var.get(), op->key, [&] { VisitStmt(op->body); });
    } else {
      VisitStmt(op->body);
    }
  }
  void Visit_(const BufferStoreNode* op) override {
    CheckAccess(op->buffer, op->indices.size(), "store to");
    IRVisitor::Visit_(op);
  }
  void Visit_(const BufferRealizeNode* op) override {
    for (const Range& r : op->bounds) {
      VisitExpr(r.min);
      VisitExpr(r.extent);
    }
    Scoped(op->buffer->data.get(), "realize", [&] { VisitStmt(op->body); });
  }
  void Visit_(const AllocateNode* op) override {
    for (const Expr& e : op->buffer->shape) VisitExpr(e);
    Scoped(op->buffer->data.get(), "allocate", [&] { VisitStmt(op->body); });
  }
  void Visit_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    Scoped(op->loop_var.get(), "loop", [&] { VisitStmt(op->body); });
  }

 private:
  void Fail(const std::string& message) {
    if (status_.ok()) status_ = absl::FailedPreconditionError(message);
  }
  void Define(const VarNode* v, const std::string& where) {
    if (!defined_.insert(v).second) {
      Fail(absl::StrCat("variable ", v->name, " is defined twice (again by a ", where, ")"));
    }
    in_scope_.insert(v);
  }
  template <typename Fn>
  void Scoped(const VarNode* v, const std::string& where, Fn body) {
    Define(v, where);
    body();
    in_scope_.erase(v);
  }
  void CheckAccess(const Buffer& b, size_t indices, const char* what) {
    if (!in_scope_.count(b->data.get())) {
      Fail(absl::StrCat(what, " buffer ", b.name(), " outside its allocation"));
    }
    if (indices != 1 && static_cast<int>(indices) != b.ndim()) {
      Fail(absl::StrCat(what, " ", b.name(), " with ", indices, " indices; it has ", b.ndim(),
                        " dimensions"));
    }
  }

  absl::Status status_;
  std::unordered_set<const VarNode*> defined_;
  std::unordered_set<const VarNode*> in_scope_;
};

}  // namespace

absl::Status VerifyWellFormed(const PrimFunc& f) { return WellFormed().Check(f); }

}  // namespace tessel::ir
