#include "compiler/transforms/inject_virtual_thread.h"

#include <absl/strings/str_cat.h>

#include <unordered_map>
#include <vector>

#include "compiler/ir/intrinsic.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/check.h"
#include "compiler/transforms/renew_defs.h"
#include "compiler/transforms/uses_var.h"

namespace tessel::transforms {
namespace {

// A buffer allocated inside a virtual thread scope, widened to one slice per thread.
struct ThreadBuffer {
  ir::Buffer wide;
  ir::Expr slice;  // elements per thread
};

using ThreadBuffers = std::unordered_map<const ir::VarNode*, ThreadBuffer>;

// The buffers whose contents differ between virtual threads: those with a store that depends on
// `depends` (the thread index, lets of it, buffers already widened), directly, through another
// such buffer, or under a loop range, condition or let that does, and those passed to an impure
// call that depends on it. Found to a fixed point; the
// result holds `depends` too.
class DependentStores : public ir::IRVisitor {
 public:
  static VarSet Find(const ir::Stmt& s, VarSet depends) {
    while (true) {
      DependentStores finder(depends);
      finder.VisitStmt(s);
      if (!finder.changed_) return depends;
      depends = std::move(finder.vars_);
    }
  }

 protected:
  void Visit_(const ir::ForNode* op) override {
    if (UsesVar(op->min, vars_) || UsesVar(op->extent, vars_)) Add(op->loop_var.get());
    ir::IRVisitor::Visit_(op);
  }
  void Visit_(const ir::LetStmtNode* op) override {
    if (UsesVar(op->value, vars_)) Add(op->var.get());
    ir::IRVisitor::Visit_(op);
  }
  void Visit_(const ir::IfThenElseNode* op) override {
    const bool dependent = UsesVar(op->condition, vars_);
    dependent_context_ += dependent;
    ir::IRVisitor::Visit_(op);
    dependent_context_ -= dependent;
  }
  void Visit_(const ir::BufferStoreNode* op) override {
    bool dependent = dependent_context_ > 0 || UsesVar(op->value, vars_);
    for (const ir::Expr& index : op->indices) dependent = dependent || UsesVar(index, vars_);
    if (dependent) Add(op->buffer->data.get());
    ir::IRVisitor::Visit_(op);
  }
  // A call that is not pure writes the buffer whose element is its first buffer argument (a
  // tensor intrinsic passes its output tile first) and reads the others: when the call depends
  // on the thread, so does that buffer.
  void Visit_(const ir::EvaluateNode* op) override {
    const auto* call = op->value.as<ir::CallNode>();
    if (call != nullptr && !ir::IntrinsicIsPure(call->op) &&
        (dependent_context_ > 0 || UsesVar(op->value, vars_))) {
      for (const ir::Expr& arg : call->args) {
        if (const auto* load = arg.as<ir::BufferLoadNode>()) {
          Add(load->buffer->data.get());
          break;
        }
      }
    }
    ir::IRVisitor::Visit_(op);
  }

 private:
  explicit DependentStores(VarSet vars) : vars_(std::move(vars)) {}
  void Add(const ir::VarNode* v) { changed_ = vars_.insert(v).second || changed_; }

  VarSet vars_;
  int dependent_context_ = 0;
  bool changed_ = false;
};

// Redirects the accesses of per-thread buffers to thread t's slice of their wide buffer.
class SliceAccesses : public ir::IRMutator {
 public:
  SliceAccesses(const ThreadBuffers& buffers, int thread) : buffers_(buffers), thread_(thread) {}

 protected:
  ir::Expr Mutate_(const ir::BufferLoadNode* op, const ir::Expr& self) override {
    ir::Expr visited = ir::IRMutator::Mutate_(op, self);
    const auto* load = visited.as<ir::BufferLoadNode>();
    auto it = buffers_.find(load->buffer->data.get());
    if (it == buffers_.end()) return visited;
    return ir::BufferLoad(it->second.wide, {Index(it->second, load->indices)});
  }
  ir::Stmt Mutate_(const ir::BufferStoreNode* op, const ir::Stmt& self) override {
    ir::Stmt visited = ir::IRMutator::Mutate_(op, self);
    const auto* store = visited.as<ir::BufferStoreNode>();
    auto it = buffers_.find(store->buffer->data.get());
    if (it == buffers_.end()) return visited;
    return ir::BufferStore(it->second.wide, store->value, {Index(it->second, store->indices)});
  }

 private:
  ir::Expr Index(const ThreadBuffer& b, const std::vector<ir::Expr>& indices) const {
    TESSEL_CHECK(indices.size() == 1) << "access to " << b.wide.name() << " with " << indices.size()
                                      << " indices: flatten storage first";
    return b.slice * thread_ + indices[0];
  }

  const ThreadBuffers& buffers_;
  int thread_;
};

class Interleaver {
 public:
  Interleaver(const ir::ForNode* loop, int threads) : threads_(threads) {
    depends_.insert(loop->loop_var.get());
    for (int t = 0; t < threads; ++t) {
      subst_.push_back({{loop->loop_var.get(), loop->min + ir::IntImm(loop->min.dtype(), t)}});
    }
  }

  ir::Stmt Run(const ir::Stmt& s) {
    if (!UsesVar(s, depends_)) return s;
    switch (s.kind()) {
      case ir::NodeKind::kSeqStmt: {
        std::vector<ir::Stmt> seq;
        for (const ir::Stmt& child : s.as<ir::SeqStmtNode>()->seq) seq.push_back(Run(child));
        return ir::SeqStmt(std::move(seq));
      }
      case ir::NodeKind::kFor: {
        const auto* op = s.as<ir::ForNode>();
        if (Depends(op->min) || Depends(op->extent)) break;
        return ir::For(op->loop_var, op->min, op->extent, op->for_kind, Run(op->body),
                       op->thread_tag);
      }
      case ir::NodeKind::kIfThenElse: {
        const auto* op = s.as<ir::IfThenElseNode>();
        if (Depends(op->condition)) break;
        return ir::IfThenElse(op->condition, Run(op->then_case),
                              op->else_case.defined() ? Run(op->else_case) : ir::Stmt());
      }
      case ir::NodeKind::kAttrStmt: {
        const auto* op = s.as<ir::AttrStmtNode>();
        if (op->value.defined() && Depends(op->value)) break;
        return ir::AttrStmt(op->node, op->key, op->value, Run(op->body));
      }
      case ir::NodeKind::kLetStmt:
        return RunLet(s.as<ir::LetStmtNode>());
      case ir::NodeKind::kAssertStmt:
        return RunAssert(s.as<ir::AssertStmtNode>());
      case ir::NodeKind::kAllocate: {
        const auto* op = s.as<ir::AllocateNode>();
        const ir::VarNode* data = op->buffer->data.get();
        if (Depends(op->buffer->shape[0]) || DataEscapes(op->body, data)) break;
        // A buffer every virtual thread fills alike (a shared tile fetched for all of them)
        // stays one buffer; the statements that fill it then run once.
        if (!DependentStores::Find(op->body, depends_).count(data)) {
          return ir::Allocate(op->buffer, Run(op->body));
        }
        ir::Expr slice = op->buffer->shape[0];
        ir::Buffer wide = op->buffer.WithShape({slice * threads_}, {});
        buffers_[data] = {wide, slice};
        depends_.insert(data);
        return ir::Allocate(wide, Run(op->body));
      }
      default:
        break;
    }
    return Copies(s);
  }

 private:
  bool Depends(const ir::Expr& e) const { return UsesVar(e, depends_); }

  // Thread t's copy of s.
  ir::Stmt Copy(const ir::Stmt& s, int t) const {
    return RenewDefs(SliceAccesses(buffers_, t).MutateStmt(s), subst_[t]);
  }
  ir::Expr Copy(const ir::Expr& e, int t) const {
    return Copy(ir::Evaluate(e), t).as<ir::EvaluateNode>()->value;
  }

  ir::Stmt Copies(const ir::Stmt& s) const {
    std::vector<ir::Stmt> seq;
    for (int t = 0; t < threads_; ++t) seq.push_back(Copy(s, t));
    return ir::SeqStmt(std::move(seq));
  }

  ir::Stmt RunLet(const ir::LetStmtNode* op) {
    if (!Depends(op->value)) return ir::LetStmt(op->var, op->value, Run(op->body));
    std::vector<ir::Var> vars;
    std::vector<ir::Expr> values;
    for (int t = 0; t < threads_; ++t) {
      values.push_back(Copy(op->value, t));
      vars.emplace_back(op->var.name(), op->var.dtype());
    }
    for (int t = 0; t < threads_; ++t) subst_[t][op->var.get()] = vars[t];
    depends_.insert(op->var.get());
    ir::Stmt body = Run(op->body);
    for (int t = threads_ - 1; t >= 0; --t) body = ir::LetStmt(vars[t], values[t], body);
    return body;
  }

  ir::Stmt RunAssert(const ir::AssertStmtNode* op) {
    const bool depends = Depends(op->condition);
    ir::Stmt body = Run(op->body);
    if (!depends) return ir::AssertStmt(op->condition, op->message, body);
    for (int t = threads_ - 1; t >= 0; --t) {
      body = ir::AssertStmt(Copy(op->condition, t), op->message, body);
    }
    return body;
  }

  int threads_;
  VarSet depends_;
  std::vector<VarMap> subst_;  // per thread
  ThreadBuffers buffers_;
};

class InjectPass : public ir::IRMutator {
 public:
  absl::Status status() const { return status_; }

 protected:
  ir::Stmt Mutate_(const ir::ForNode* op, const ir::Stmt& self) override {
    if (!status_.ok()) return self;
    ir::Stmt visited = ir::IRMutator::Mutate_(op, self);
    if (!status_.ok()) return self;
    if (op->for_kind != ir::ForKind::kThreadBinding || op->thread_tag != "vthread") return visited;
    const auto* loop = visited.as<ir::ForNode>();
    const int64_t* extent = ir::AsConstInt(loop->extent);
    if (!extent || *extent < 1) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat("virtual thread loop '", loop->loop_var.name(), "' has extent ",
                       ir::ToString(loop->extent), "; it needs a positive constant"));
      return self;
    }
    return Interleaver(loop, static_cast<int>(*extent)).Run(loop->body);
  }

 private:
  absl::Status status_;
};

}  // namespace

absl::StatusOr<ir::Stmt> InjectVirtualThread(ir::Stmt stmt) {
  InjectPass pass;
  ir::Stmt result = pass.MutateStmt(stmt);
  if (!pass.status().ok()) return pass.status();
  return result;
}

}  // namespace tessel::transforms
