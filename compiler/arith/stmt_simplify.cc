#include "compiler/arith/stmt_simplify.h"

#include <unordered_map>

#include "compiler/arith/expr_query.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"

namespace tessel::arith {

using ir::Expr;
using ir::Stmt;

namespace {

Stmt NoOp() { return ir::SeqStmt({}); }

bool IsNoOp(const Stmt& s) {
  const auto* seq = s.as<ir::SeqStmtNode>();
  return seq && seq->seq.empty();
}

bool IsTrivialValue(const Expr& e) {
  return e.as<ir::IntImmNode>() || e.as<ir::FloatImmNode>() || e.as<ir::VarNode>();
}

// Whether s refers to var anywhere: in an expression, as a buffer's data or in a buffer's shape,
// strides or offset, or as an attribute's node.
bool StmtUsesVar(const Stmt& s, const ir::VarNode* var) {
  bool found = false;
  auto is_var = [var](const ir::VarNode* v) { return v == var; };
  auto check_expr = [&](const Expr& e) {
    if (!found && e.defined()) found = internal::UsesVar(e, is_var);
  };
  auto check_buffer = [&](const ir::Buffer& b) {
    if (found || !b.defined()) return;
    found = b->data.get() == var;
    for (const Expr& e : b->shape) check_expr(e);
    for (const Expr& e : b->strides) check_expr(e);
    check_expr(b->elem_offset);
  };
  ir::PreOrderVisit(
      s,
      [&](const Expr& e) {
        if (const auto* load = e.as<ir::BufferLoadNode>()) check_buffer(load->buffer);
        if (const auto* v = e.as<ir::VarNode>()) found = found || v == var;
      },
      [&](const Stmt& st) {
        if (const auto* op = st.as<ir::BufferStoreNode>()) check_buffer(op->buffer);
        if (const auto* op = st.as<ir::BufferRealizeNode>()) check_buffer(op->buffer);
        if (const auto* op = st.as<ir::AllocateNode>()) check_buffer(op->buffer);
        if (const auto* op = st.as<ir::AttrStmtNode>()) {
          found = found || op->node.get() == static_cast<const Object*>(var);
          if (const auto* iv = dynamic_cast<const ir::IterVarNode*>(op->node.get())) {
            found = found || iv->var.get() == var;
          }
        }
      });
  return found;
}

class StmtSimplifier : public ir::IRMutator {
 public:
  explicit StmtSimplifier(Analyzer& analyzer) : analyzer_(analyzer) {}

  Expr MutateExpr(const Expr& e) override { return analyzer_.Simplify(e); }

 protected:
  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    const Expr min = MutateExpr(op->min);
    const Expr extent = MutateExpr(op->extent);
    if (ir::IsConstInt(extent, 1) && op->for_kind != ir::ForKind::kThreadBinding) {
      return MutateStmt(ir::Substitute(op->body, {{op->loop_var.get(), min}}));
    }
    Stmt body;
    {
      Analyzer::Scope loop(&analyzer_, op->loop_var, {min, extent});
      body = MutateStmt(op->body);
    }
    if (IsNoOp(body)) return NoOp();
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return self;
    return ir::For(op->loop_var, min, extent, op->for_kind, body, op->thread_tag);
  }

  Stmt Mutate_(const ir::IfThenElseNode* op, const Stmt& self) override {
    const Expr condition = MutateExpr(op->condition);
    if (const int64_t* c = ir::AsConstInt(condition)) {
      if (*c) return MutateStmt(op->then_case);
      return op->else_case.defined() ? MutateStmt(op->else_case) : NoOp();
    }
    const Stmt then_case = MutateStmt(op->then_case);
    Stmt else_case = op->else_case.defined() ? MutateStmt(op->else_case) : Stmt();
    if (else_case.defined() && IsNoOp(else_case)) else_case = Stmt();
    if (IsNoOp(then_case)) {
      if (!else_case.defined())
        return internal::HasSideEffects(condition) ? ir::Evaluate(condition) : NoOp();
      return ir::IfThenElse(analyzer_.Simplify(ir::Not(condition)), else_case);
    }
    if (condition.same_as(op->condition) && then_case.same_as(op->then_case) &&
        else_case.same_as(op->else_case)) {
      return self;
    }
    return ir::IfThenElse(condition, then_case, else_case);
  }

  Stmt Mutate_(const ir::LetStmtNode* op, const Stmt& self) override {
    const Expr value = MutateExpr(op->value);
    if (IsTrivialValue(value)) {
      return MutateStmt(ir::Substitute(op->body, {{op->var.get(), value}}));
    }
    Stmt body;
    {
      Analyzer::Scope scope(&analyzer_);
      analyzer_.BindFacts(op->var, value);
      body = MutateStmt(op->body);
    }
    if (!internal::HasSideEffects(value) && !StmtUsesVar(body, op->var.get())) return body;
    if (value.same_as(op->value) && body.same_as(op->body)) return self;
    return ir::LetStmt(op->var, value, body);
  }

  Stmt Mutate_(const ir::AttrStmtNode* op, const Stmt& self) override {
    const Expr value = op->value.defined() ? MutateExpr(op->value) : op->value;
    Stmt body;
    {
      Analyzer::Scope scope(&analyzer_);
      const auto* iv = dynamic_cast<const ir::IterVarNode*>(op->node.get());
      if (iv && value.defined() &&
          (op->key == ir::attr::kThreadExtent || op->key == ir::attr::kVirtualThread)) {
        analyzer_.Bind(iv->var, ir::Range{ir::MakeZero(value.dtype()), value});
      }
      body = MutateStmt(op->body);
    }
    if (IsNoOp(body)) return NoOp();
    if (value.same_as(op->value) && body.same_as(op->body)) return self;
    return ir::AttrStmt(op->node, op->key, value, body);
  }

  Stmt Mutate_(const ir::AssertStmtNode* op, const Stmt& self) override {
    const Expr condition = MutateExpr(op->condition);
    const Stmt body = MutateStmt(op->body);
    if (ir::IsConstInt(condition, 1)) return body;
    if (condition.same_as(op->condition) && body.same_as(op->body)) return self;
    return ir::AssertStmt(condition, op->message, body);
  }

  Stmt Mutate_(const ir::AllocateNode* op, const Stmt& self) override {
    const Stmt body = MutateStmt(op->body);
    if (IsNoOp(body)) return NoOp();
    return body.same_as(op->body) ? self : ir::Allocate(op->buffer, body);
  }

  Stmt Mutate_(const ir::BufferRealizeNode* op, const Stmt& self) override {
    const Stmt result = IRMutator::Mutate_(op, self);
    const auto* realize = result.as<ir::BufferRealizeNode>();
    return realize && IsNoOp(realize->body) ? NoOp() : result;
  }

  Stmt Mutate_(const ir::SeqStmtNode* op, const Stmt& self) override {
    bool changed = false;
    std::vector<Stmt> seq;
    for (const Stmt& s : op->seq) {
      Stmt m = MutateStmt(s);
      changed |= !m.same_as(s);
      if (IsNoOp(m)) {
        changed = true;
        continue;
      }
      seq.push_back(std::move(m));
    }
    if (!changed) return self;
    return seq.empty() ? NoOp() : ir::SeqStmt(std::move(seq));
  }

  Stmt Mutate_(const ir::EvaluateNode* op, const Stmt& self) override {
    const Expr value = MutateExpr(op->value);
    if (!internal::HasSideEffects(value)) return NoOp();
    return value.same_as(op->value) ? self : ir::Evaluate(value);
  }

 private:
  Analyzer& analyzer_;
};

}  // namespace

Stmt Simplify(const Stmt& s, Analyzer* analyzer) {
  Analyzer::Scope scope(analyzer);
  return StmtSimplifier(*analyzer).MutateStmt(s);
}

Stmt Simplify(const Stmt& s) {
  Analyzer analyzer;
  return Simplify(s, &analyzer);
}

}  // namespace tessel::arith
