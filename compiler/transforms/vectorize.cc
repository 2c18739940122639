#include "compiler/transforms/vectorize.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/check.h"
#include "compiler/transforms/renew_defs.h"
#include "compiler/transforms/uses_var.h"

namespace tessel::transforms {
namespace {

// The scalar a broadcast repeats, or e itself if it is a scalar; else undefined.
ir::Expr ScalarOf(const ir::Expr& e) {
  if (e.dtype().is_scalar()) return e;
  if (const auto* b = e.as<ir::BroadcastNode>()) return b->value;
  return ir::Expr();
}

// Rewrites expressions of one loop's body with the loop variable as ramp(min, 1, lanes). Sets
// failed() when an expression cannot be made lane-wise; the caller then scalarizes.
class ExprVectorizer : public ir::IRMutator {
 public:
  ExprVectorizer(const ir::VarNode* var, ir::Expr ramp, int lanes)
      : var_(var), ramp_(std::move(ramp)), lanes_(lanes) {}

  // Vectorizes e; false if it cannot be.
  bool Run(const ir::Expr& e, ir::Expr* out) {
    failed_ = false;
    *out = MutateExpr(e);
    return !failed_;
  }

  ir::Expr MutateExpr(const ir::Expr& e) override {
    if (failed_) return e;
    if (e.dtype().is_vector()) {  // a vector inside a vector loop: not lane-wise
      failed_ = true;
      return e;
    }
    return ir::IRMutator::MutateExpr(e);
  }

  ir::Expr Widen(const ir::Expr& e) const {
    return e.dtype().is_scalar() ? ir::Broadcast(e, lanes_) : e;
  }

  // Whether an access with these (vectorized) indices loads or stores one vector: only the last
  // index may be a vector, and the buffer's elements must be scalars. Sets failed() if not.
  bool AccessIsLaneWise(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices) {
    for (size_t k = 0; k + 1 < indices.size(); ++k) {
      if (indices[k].dtype().is_vector()) failed_ = true;
    }
    if (indices.back().dtype().is_vector() && buffer->dtype.is_vector()) failed_ = true;
    return !failed_;
  }

 protected:
  ir::Expr Mutate_(const ir::VarNode* op, const ir::Expr& self) override {
    return op == var_ ? ramp_ : self;
  }

#define TESSEL_X(name)                                                                        \
  ir::Expr Mutate_(const ir::name##Node* op, const ir::Expr& self) override {                 \
    return Binary(op->a, op->b, self, [](ir::Expr a, ir::Expr b) { return ir::name(a, b); }); \
  }
  TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X

  ir::Expr Mutate_(const ir::CastNode* op, const ir::Expr& self) override {
    ir::Expr value = MutateExpr(op->value);
    if (value.same_as(op->value)) return self;
    return ir::Cast(op->dtype.with_lanes(value.dtype().lanes()), value);
  }

  ir::Expr Mutate_(const ir::SelectNode* op, const ir::Expr& self) override {
    ir::Expr c = MutateExpr(op->condition);
    ir::Expr t = MutateExpr(op->true_value);
    ir::Expr f = MutateExpr(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
      return self;
    }
    if (c.dtype().is_scalar() && t.dtype().is_scalar() && f.dtype().is_scalar()) {
      return ir::Select(c, t, f);
    }
    return ir::Select(c, Widen(t), Widen(f));
  }

  ir::Expr Mutate_(const ir::LetNode* op, const ir::Expr& self) override {
    ir::Expr value = MutateExpr(op->value);
    if (value.dtype().is_vector()) failed_ = true;
    ir::Expr body = MutateExpr(op->body);
    if (failed_ || (value.same_as(op->value) && body.same_as(op->body))) return self;
    return ir::Let(op->var, value, body);
  }

  ir::Expr Mutate_(const ir::CallNode* op, const ir::Expr& self) override {
    if (!ir::IntrinsicIsPure(op->op)) {
      failed_ = true;
      return self;
    }
    bool changed = false;
    std::vector<ir::Expr> args = MutateAll(op->args, &changed);
    if (!changed || failed_) return self;
    bool vector = false;
    for (const ir::Expr& a : args) vector |= a.dtype().is_vector();
    if (!vector) return ir::Call(op->dtype, op->op, std::move(args));
    if (op->op == ir::Intrinsic::kIfThenElse) {
      // Only the taken branch may be evaluated (a guarded load): lanes cannot choose apart.
      if (args[0].dtype().is_vector()) {
        failed_ = true;
        return self;
      }
      return ir::Call(op->dtype.with_lanes(lanes_), op->op,
                      {args[0], Widen(args[1]), Widen(args[2])});
    }
    for (ir::Expr& a : args) a = Widen(a);
    return ir::Call(op->dtype.with_lanes(lanes_), op->op, std::move(args));
  }

  ir::Expr Mutate_(const ir::BufferLoadNode* op, const ir::Expr& self) override {
    bool changed = false;
    std::vector<ir::Expr> indices = MutateAll(op->indices, &changed);
    if (!changed || failed_) return self;
    if (!AccessIsLaneWise(op->buffer, indices)) return self;
    return ir::BufferLoad(op->buffer, std::move(indices));
  }

  ir::Expr Mutate_(const ir::ProducerLoadNode*, const ir::Expr& self) override {
    return Opaque(self);
  }
  ir::Expr Mutate_(const ir::ReduceNode*, const ir::Expr& self) override { return Opaque(self); }

 private:
  template <typename Make>
  ir::Expr Binary(const ir::Expr& a0, const ir::Expr& b0, const ir::Expr& self, Make make) {
    ir::Expr a = MutateExpr(a0);
    ir::Expr b = MutateExpr(b0);
    if (failed_ || (a.same_as(a0) && b.same_as(b0))) return self;
    if (a.dtype().is_scalar() && b.dtype().is_scalar()) return make(a, b);
    const ir::Expr sa = ScalarOf(a), sb = ScalarOf(b);
    if (sa.defined() && sb.defined()) return ir::Broadcast(make(sa, sb), lanes_);
    const auto* ra = a.as<ir::RampNode>();
    const auto* rb = b.as<ir::RampNode>();
    switch (self.kind()) {
      case ir::NodeKind::kAdd:
        if (ra && sb.defined()) return ir::Ramp(ra->base + sb, ra->stride, lanes_);
        if (sa.defined() && rb) return ir::Ramp(sa + rb->base, rb->stride, lanes_);
        if (ra && rb) return ir::Ramp(ra->base + rb->base, ra->stride + rb->stride, lanes_);
        break;
      case ir::NodeKind::kSub:
        if (ra && sb.defined()) return ir::Ramp(ra->base - sb, ra->stride, lanes_);
        if (sa.defined() && rb) return ir::Ramp(sa - rb->base, -rb->stride, lanes_);
        if (ra && rb) return ir::Ramp(ra->base - rb->base, ra->stride - rb->stride, lanes_);
        break;
      case ir::NodeKind::kMul:
        if (ra && sb.defined()) return ir::Ramp(ra->base * sb, ra->stride * sb, lanes_);
        if (sa.defined() && rb) return ir::Ramp(sa * rb->base, sa * rb->stride, lanes_);
        break;
      default:
        break;
    }
    return make(Widen(a), Widen(b));
  }

  ir::Expr Opaque(const ir::Expr& self) {
    if (UsesVar(self, {var_})) failed_ = true;
    return self;
  }

  const ir::VarNode* var_;
  ir::Expr ramp_;
  int lanes_;
  bool failed_ = false;
};

// Turns the body of one vectorized loop into vector code, scalarizing what cannot be.
class LoopVectorizer {
 public:
  LoopVectorizer(const ir::ForNode* loop, int lanes)
      : loop_(loop),
        exprs_(loop->loop_var.get(), ir::Ramp(loop->min, ir::IntImm(loop->min.dtype(), 1), lanes),
               lanes) {}

  ir::Stmt Run(const ir::Stmt& body) { return Vec(body); }

 private:
  ir::Stmt Vec(const ir::Stmt& s) {
    switch (s.kind()) {
      case ir::NodeKind::kSeqStmt: {
        std::vector<ir::Stmt> seq;
        for (const ir::Stmt& child : s.as<ir::SeqStmtNode>()->seq) seq.push_back(Vec(child));
        return ir::SeqStmt(std::move(seq));
      }
      case ir::NodeKind::kBufferStore: {
        const auto* op = s.as<ir::BufferStoreNode>();
        ir::Expr value;
        std::vector<ir::Expr> indices(op->indices.size());
        bool ok = exprs_.Run(op->value, &value);
        for (size_t k = 0; ok && k < indices.size(); ++k)
          ok = exprs_.Run(op->indices[k], &indices[k]);
        // A store whose address does not move with the lanes would be executed once, not once
        // per lane.
        if (!ok || !indices.back().dtype().is_vector() ||
            !exprs_.AccessIsLaneWise(op->buffer, indices)) {
          return Scalarize(s);
        }
        return ir::BufferStore(op->buffer, exprs_.Widen(value), std::move(indices));
      }
      case ir::NodeKind::kEvaluate: {
        ir::Expr value;
        if (!exprs_.Run(s.as<ir::EvaluateNode>()->value, &value)) return Scalarize(s);
        return ir::Evaluate(value);
      }
      case ir::NodeKind::kIfThenElse: {
        const auto* op = s.as<ir::IfThenElseNode>();
        ir::Expr c;
        if (!ScalarExpr(op->condition, &c)) return Scalarize(s);
        return ir::IfThenElse(c, Vec(op->then_case),
                              op->else_case.defined() ? Vec(op->else_case) : ir::Stmt());
      }
      case ir::NodeKind::kFor: {
        const auto* op = s.as<ir::ForNode>();
        ir::Expr min, extent;
        if (!ScalarExpr(op->min, &min) || !ScalarExpr(op->extent, &extent)) return Scalarize(s);
        return ir::For(op->loop_var, min, extent, op->for_kind, Vec(op->body), op->thread_tag);
      }
      case ir::NodeKind::kLetStmt: {
        const auto* op = s.as<ir::LetStmtNode>();
        ir::Expr value;
        if (!ScalarExpr(op->value, &value)) return Scalarize(s);
        return ir::LetStmt(op->var, value, Vec(op->body));
      }
      case ir::NodeKind::kAttrStmt: {
        const auto* op = s.as<ir::AttrStmtNode>();
        ir::Expr value = op->value;
        if (value.defined() && !ScalarExpr(op->value, &value)) return Scalarize(s);
        return ir::AttrStmt(op->node, op->key, value, Vec(op->body));
      }
      case ir::NodeKind::kAssertStmt: {
        const auto* op = s.as<ir::AssertStmtNode>();
        ir::Expr c;
        if (!ScalarExpr(op->condition, &c)) return Scalarize(s);
        return ir::AssertStmt(c, op->message, Vec(op->body));
      }
      case ir::NodeKind::kAllocate:
      case ir::NodeKind::kBufferRealize:
        return Scalarize(s);
      default:
        TESSEL_UNREACHABLE() << "statement kind " << ir::NodeKindName(s.kind());
    }
  }

  // e vectorized, required to stay a scalar (it does not depend on the lanes).
  bool ScalarExpr(const ir::Expr& e, ir::Expr* out) {
    return exprs_.Run(e, out) && out->dtype().is_scalar();
  }

  // s run lane by lane in a serial loop over the vector loop's range.
  ir::Stmt Scalarize(const ir::Stmt& s) {
    if (!reused_var_) {
      reused_var_ = true;
      return ir::For(loop_->loop_var, loop_->min, loop_->extent, ir::ForKind::kSerial, s);
    }
    ir::Var fresh(loop_->loop_var.name(), loop_->loop_var.dtype());
    return ir::For(fresh, loop_->min, loop_->extent, ir::ForKind::kSerial,
                   RenewDefs(s, {{loop_->loop_var.get(), fresh}}));
  }

  const ir::ForNode* loop_;
  ExprVectorizer exprs_;
  bool reused_var_ = false;
};

class VectorizeLoops : public ir::IRMutator {
 public:
  absl::Status status() const { return status_; }

 protected:
  ir::Stmt Mutate_(const ir::ForNode* op, const ir::Stmt& self) override {
    if (!status_.ok()) return self;
    ir::Stmt visited = ir::IRMutator::Mutate_(op, self);
    if (op->for_kind != ir::ForKind::kVectorized || !status_.ok()) return visited;
    const auto* loop = visited.as<ir::ForNode>();
    const int64_t* extent = ir::AsConstInt(loop->extent);
    if (!extent) {
      status_ = absl::InvalidArgumentError(absl::StrCat("vectorized loop '", loop->loop_var.name(),
                                                        "' has non-constant extent ",
                                                        ir::ToString(loop->extent)));
      return self;
    }
    if (*extent < 1 || *extent > 65535) {
      status_ = absl::InvalidArgumentError(absl::StrCat("vectorized loop '", loop->loop_var.name(),
                                                        "' has extent ", *extent,
                                                        "; a vector needs 1 to 65535 lanes"));
      return self;
    }
    if (*extent == 1) return RenewDefs(loop->body, {{loop->loop_var.get(), loop->min}});
    return LoopVectorizer(loop, static_cast<int>(*extent)).Run(loop->body);
  }

 private:
  absl::Status status_;
};

}  // namespace

absl::StatusOr<ir::Stmt> Vectorize(ir::Stmt stmt) {
  VectorizeLoops pass;
  ir::Stmt result = pass.MutateStmt(stmt);
  if (!pass.status().ok()) return pass.status();
  return result;
}

}  // namespace tessel::transforms
