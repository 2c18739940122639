#include "compiler/ir/mutator.h"

#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::ir {

Expr IRMutator::MutateExpr(const Expr& e) {
  TESSEL_CHECK(e.defined()) << "mutating an undefined expression";
  switch (e.kind()) {
#define TESSEL_X(name)    \
  case NodeKind::k##name: \
    return Mutate_(static_cast<const name##Node*>(e.get()), e);
    TESSEL_IR_EXPR_NODES(TESSEL_X)
#undef TESSEL_X
    default:
      TESSEL_UNREACHABLE() << "statement kind " << NodeKindName(e.kind()) << " as expression";
  }
}

Stmt IRMutator::MutateStmt(const Stmt& s) {
  TESSEL_CHECK(s.defined()) << "mutating an undefined statement";
  switch (s.kind()) {
#define TESSEL_X(name)    \
  case NodeKind::k##name: \
    return Mutate_(static_cast<const name##Node*>(s.get()), s);
    TESSEL_IR_STMT_NODES(TESSEL_X)
#undef TESSEL_X
    default:
      TESSEL_UNREACHABLE() << "expression kind " << NodeKindName(s.kind()) << " as statement";
  }
}

std::vector<Expr> IRMutator::MutateAll(const std::vector<Expr>& exprs, bool* changed) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const Expr& e : exprs) {
    out.push_back(MutateExpr(e));
    if (!out.back().same_as(e)) *changed = true;
  }
  return out;
}

Expr IRMutator::Mutate_(const IntImmNode*, const Expr& self) { return self; }
Expr IRMutator::Mutate_(const FloatImmNode*, const Expr& self) { return self; }
Expr IRMutator::Mutate_(const StringImmNode*, const Expr& self) { return self; }
Expr IRMutator::Mutate_(const VarNode*, const Expr& self) { return self; }

Expr IRMutator::Mutate_(const CastNode* op, const Expr& self) {
  Expr value = MutateExpr(op->value);
  return value.same_as(op->value) ? self : Cast(op->dtype, value);
}

#define TESSEL_X(name)                                              \
  Expr IRMutator::Mutate_(const name##Node* op, const Expr& self) { \
    Expr a = MutateExpr(op->a);                                     \
    Expr b = MutateExpr(op->b);                                     \
    if (a.same_as(op->a) && b.same_as(op->b)) return self;          \
    return name(std::move(a), std::move(b));                        \
  }
TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X

Expr IRMutator::Mutate_(const NotNode* op, const Expr& self) {
  Expr a = MutateExpr(op->a);
  return a.same_as(op->a) ? self : Not(a);
}

Expr IRMutator::Mutate_(const SelectNode* op, const Expr& self) {
  Expr c = MutateExpr(op->condition);
  Expr t = MutateExpr(op->true_value);
  Expr f = MutateExpr(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
    return self;
  }
  return Select(c, t, f);
}

Expr IRMutator::Mutate_(const RampNode* op, const Expr& self) {
  Expr base = MutateExpr(op->base);
  Expr stride = MutateExpr(op->stride);
  if (base.same_as(op->base) && stride.same_as(op->stride)) return self;
  return Ramp(base, stride, op->lanes);
}

Expr IRMutator::Mutate_(const BroadcastNode* op, const Expr& self) {
  Expr value = MutateExpr(op->value);
  return value.same_as(op->value) ? self : Broadcast(value, op->lanes);
}

Expr IRMutator::Mutate_(const LetNode* op, const Expr& self) {
  Expr value = MutateExpr(op->value);
  Expr body = MutateExpr(op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return self;
  return Let(op->var, value, body);
}

Expr IRMutator::Mutate_(const CallNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> args = MutateAll(op->args, &changed);
  return changed ? Call(op->dtype, op->op, std::move(args)) : self;
}

Expr IRMutator::Mutate_(const BufferLoadNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> indices = MutateAll(op->indices, &changed);
  return changed ? BufferLoad(op->buffer, std::move(indices)) : self;
}

Expr IRMutator::Mutate_(const ProducerLoadNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> indices = MutateAll(op->indices, &changed);
  return changed ? ProducerLoad(op->producer, std::move(indices)) : self;
}

Expr IRMutator::Mutate_(const ReduceNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> source = MutateAll(op->source, &changed);
  Expr condition = MutateExpr(op->condition);
  if (!changed && condition.same_as(op->condition)) return self;
  return Reduce(op->combiner, std::move(source), op->axis, condition, op->value_index);
}

Stmt IRMutator::Mutate_(const LetStmtNode* op, const Stmt& self) {
  Expr value = MutateExpr(op->value);
  Stmt body = MutateStmt(op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return self;
  return LetStmt(op->var, value, body);
}

Stmt IRMutator::Mutate_(const AttrStmtNode* op, const Stmt& self) {
  Expr value = op->value.defined() ? MutateExpr(op->value) : op->value;
  Stmt body = MutateStmt(op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return self;
  return AttrStmt(op->node, op->key, value, body);
}

Stmt IRMutator::Mutate_(const AssertStmtNode* op, const Stmt& self) {
  Expr condition = MutateExpr(op->condition);
  Stmt body = MutateStmt(op->body);
  if (condition.same_as(op->condition) && body.same_as(op->body)) return self;
  return AssertStmt(condition, op->message, body);
}

Stmt IRMutator::Mutate_(const BufferStoreNode* op, const Stmt& self) {
  Expr value = MutateExpr(op->value);
  bool changed = !value.same_as(op->value);
  std::vector<Expr> indices = MutateAll(op->indices, &changed);
  return changed ? BufferStore(op->buffer, value, std::move(indices)) : self;
}

Stmt IRMutator::Mutate_(const BufferRealizeNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<Range> bounds;
  for (const Range& r : op->bounds) {
    Range m{MutateExpr(r.min), MutateExpr(r.extent)};
    changed |= !m.min.same_as(r.min) || !m.extent.same_as(r.extent);
    bounds.push_back(std::move(m));
  }
  Stmt body = MutateStmt(op->body);
  if (!changed && body.same_as(op->body)) return self;
  return BufferRealize(op->buffer, std::move(bounds), body);
}

Stmt IRMutator::Mutate_(const AllocateNode* op, const Stmt& self) {
  Stmt body = MutateStmt(op->body);
  return body.same_as(op->body) ? self : Allocate(op->buffer, body);
}

Stmt IRMutator::Mutate_(const ForNode* op, const Stmt& self) {
  Expr min = MutateExpr(op->min);
  Expr extent = MutateExpr(op->extent);
  Stmt body = MutateStmt(op->body);
  if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return self;
  return For(op->loop_var, min, extent, op->for_kind, body, op->thread_tag);
}

Stmt IRMutator::Mutate_(const IfThenElseNode* op, const Stmt& self) {
  Expr condition = MutateExpr(op->condition);
  Stmt then_case = MutateStmt(op->then_case);
  Stmt else_case = op->else_case.defined() ? MutateStmt(op->else_case) : op->else_case;
  if (condition.same_as(op->condition) && then_case.same_as(op->then_case) &&
      else_case.same_as(op->else_case)) {
    return self;
  }
  return IfThenElse(condition, then_case, else_case);
}

Stmt IRMutator::Mutate_(const SeqStmtNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> seq;
  seq.reserve(op->seq.size());
  for (const Stmt& s : op->seq) {
    seq.push_back(MutateStmt(s));
    changed |= !seq.back().same_as(s);
  }
  return changed ? SeqStmt(std::move(seq)) : self;
}

Stmt IRMutator::Mutate_(const EvaluateNode* op, const Stmt& self) {
  Expr value = MutateExpr(op->value);
  return value.same_as(op->value) ? self : Evaluate(value);
}

namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const std::unordered_map<const VarNode*, Expr>& map) : map_(map) {}

 protected:
  Expr Mutate_(const VarNode* op, const Expr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

  // A buffer's shape, strides and element offset are expressions too: a view of a tile (what
  // tensorize binds an intrinsic's buffers to) has an offset in the loop variables, and a copy of
  // its loop nest with fresh variables must offset by those.
  Expr Mutate_(const BufferLoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<BufferLoadNode>();
    Buffer b = MutateBuffer(load->buffer);
    return b.same_as(load->buffer) ? e : BufferLoad(b, load->indices);
  }
  Stmt Mutate_(const BufferStoreNode* op, const Stmt& self) override {
    Stmt s = IRMutator::Mutate_(op, self);
    const auto* store = s.as<BufferStoreNode>();
    Buffer b = MutateBuffer(store->buffer);
    return b.same_as(store->buffer) ? s : BufferStore(b, store->value, store->indices);
  }

 private:
  Buffer MutateBuffer(const Buffer& b) {
    bool changed = false;
    std::vector<Expr> shape = MutateAll(b->shape, &changed);
    std::vector<Expr> strides = MutateAll(b->strides, &changed);
    Expr offset = b->elem_offset.defined() ? MutateExpr(b->elem_offset) : b->elem_offset;
    changed |= !offset.same_as(b->elem_offset);
    if (!changed) return b;
    auto node = MakeRef<BufferNode>();
    node->data = b->data;
    node->dtype = b->dtype;
    node->shape = std::move(shape);
    node->strides = std::move(strides);
    node->elem_offset = std::move(offset);
    node->name = b->name;
    node->scope = b->scope;
    node->alignment = b->alignment;
    return Buffer(std::move(node));
  }

  const std::unordered_map<const VarNode*, Expr>& map_;
};

}  // namespace

Expr Substitute(const Expr& e, const std::unordered_map<const VarNode*, Expr>& map) {
  if (map.empty()) return e;
  return Substituter(map).MutateExpr(e);
}

Stmt Substitute(const Stmt& s, const std::unordered_map<const VarNode*, Expr>& map) {
  if (map.empty()) return s;
  return Substituter(map).MutateStmt(s);
}

}  // namespace tessel::ir
