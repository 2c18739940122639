#include "compiler/transforms/inject_double_buffer.h"

#include <optional>
#include <unordered_set>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"
#include "compiler/transforms/renew_defs.h"
#include "compiler/transforms/uses_var.h"

namespace tessel::transforms {
namespace {

// What a statement does with memory: the data variables of the buffers it loads and stores.
struct Effects {
  std::unordered_set<const ir::VarNode*> loads, stores;
  bool impure = false;
  bool multi_index = false;  // some access of the buffer `of` has more than one index
};

Effects EffectsOf(const ir::Stmt& s, const ir::VarNode* of) {
  Effects fx;
  ir::PreOrderVisit(
      s,
      [&](const ir::Expr& e) {
        if (const auto* load = e.as<ir::BufferLoadNode>()) {
          fx.loads.insert(load->buffer->data.get());
          fx.multi_index |= load->buffer->data.get() == of && load->indices.size() != 1;
        } else if (const auto* call = e.as<ir::CallNode>()) {
          fx.impure |= !ir::IntrinsicIsPure(call->op);
        }
      },
      [&](const ir::Stmt& st) {
        if (const auto* store = st.as<ir::BufferStoreNode>()) {
          fx.stores.insert(store->buffer->data.get());
          fx.multi_index |= store->buffer->data.get() == of && store->indices.size() != 1;
        }
      });
  return fx;
}

// Redirects the accesses of one buffer to a wider buffer, adding an offset to the index.
class Redirect : public ir::IRMutator {
 public:
  Redirect(const ir::VarNode* data, ir::Buffer wide, ir::Expr offset)
      : data_(data), wide_(std::move(wide)), offset_(std::move(offset)) {}

 protected:
  ir::Expr Mutate_(const ir::BufferLoadNode* op, const ir::Expr& self) override {
    ir::Expr visited = ir::IRMutator::Mutate_(op, self);
    const auto* load = visited.as<ir::BufferLoadNode>();
    if (load->buffer->data.get() != data_) return visited;
    return ir::BufferLoad(wide_, {load->indices[0] + offset_});
  }
  ir::Stmt Mutate_(const ir::BufferStoreNode* op, const ir::Stmt& self) override {
    ir::Stmt visited = ir::IRMutator::Mutate_(op, self);
    const auto* store = visited.as<ir::BufferStoreNode>();
    if (store->buffer->data.get() != data_) return visited;
    return ir::BufferStore(wide_, store->value, {store->indices[0] + offset_});
  }

 private:
  const ir::VarNode* data_;
  ir::Buffer wide_;
  ir::Expr offset_;
};

// Rewrites the one loop that fills and reads buffer B, or reports that the pattern does not
// hold (an undefined result).
class DoubleBufferer {
 public:
  DoubleBufferer(const ir::Buffer& buffer, ir::Buffer wide)
      : data_(buffer->data.get()), size_(buffer->shape[0]), wide_(std::move(wide)) {}

  ir::Stmt Rewrite(const ir::Stmt& s) {
    if (const auto* loop = s.as<ir::ForNode>()) {
      if (std::optional<size_t> fill = Matches(loop)) return Transform(loop, *fill);
    }
    switch (s.kind()) {
      case ir::NodeKind::kSeqStmt: {
        std::vector<ir::Stmt> seq = s.as<ir::SeqStmtNode>()->seq;
        int users = 0;
        for (ir::Stmt& child : seq) {
          if (!Uses(child)) continue;
          ++users;
          child = Rewrite(child);
          if (!child.defined()) return ir::Stmt();
        }
        return users == 1 ? ir::SeqStmt(std::move(seq)) : ir::Stmt();
      }
      case ir::NodeKind::kFor: {
        const auto* op = s.as<ir::ForNode>();
        if (Uses(op->min) || Uses(op->extent)) return ir::Stmt();
        return Wrap(op->body, [&](ir::Stmt body) {
          return ir::For(op->loop_var, op->min, op->extent, op->for_kind, body, op->thread_tag);
        });
      }
      case ir::NodeKind::kIfThenElse: {
        const auto* op = s.as<ir::IfThenElseNode>();
        if (Uses(op->condition)) return ir::Stmt();
        const bool in_else = op->else_case.defined() && Uses(op->else_case);
        if (in_else && Uses(op->then_case)) return ir::Stmt();
        if (!in_else) {
          return Wrap(op->then_case, [&](ir::Stmt then_case) {
            return ir::IfThenElse(op->condition, then_case, op->else_case);
          });
        }
        return Wrap(op->else_case, [&](ir::Stmt else_case) {
          return ir::IfThenElse(op->condition, op->then_case, else_case);
        });
      }
      case ir::NodeKind::kLetStmt: {
        const auto* op = s.as<ir::LetStmtNode>();
        if (Uses(op->value)) return ir::Stmt();
        return Wrap(op->body, [&](ir::Stmt body) { return ir::LetStmt(op->var, op->value, body); });
      }
      case ir::NodeKind::kAttrStmt: {
        const auto* op = s.as<ir::AttrStmtNode>();
        if (op->value.defined() && Uses(op->value)) return ir::Stmt();
        return Wrap(op->body, [&](ir::Stmt body) {
          return ir::AttrStmt(op->node, op->key, op->value, body);
        });
      }
      case ir::NodeKind::kAssertStmt: {
        const auto* op = s.as<ir::AssertStmtNode>();
        if (Uses(op->condition)) return ir::Stmt();
        return Wrap(op->body, [&](ir::Stmt body) {
          return ir::AssertStmt(op->condition, op->message, body);
        });
      }
      case ir::NodeKind::kAllocate: {
        const auto* op = s.as<ir::AllocateNode>();
        return Wrap(op->body, [&](ir::Stmt body) { return ir::Allocate(op->buffer, body); });
      }
      default:
        return ir::Stmt();
    }
  }

 private:
  bool Uses(const ir::Stmt& s) const { return UsesVar(s, {data_}); }
  bool Uses(const ir::Expr& e) const { return UsesVar(e, {data_}); }

  // make(Rewrite(body)), or undefined if the body does not match.
  template <typename Make>
  ir::Stmt Wrap(const ir::Stmt& body, Make make) {
    ir::Stmt rewritten = Rewrite(body);
    return rewritten.defined() ? make(rewritten) : ir::Stmt();
  }

  // The index of the statement that fills B in the loop's body, if the loop has the pattern.
  std::optional<size_t> Matches(const ir::ForNode* loop) const {
    if (loop->for_kind != ir::ForKind::kSerial || Uses(loop->min) || Uses(loop->extent)) {
      return std::nullopt;
    }
    const auto* seq = loop->body.as<ir::SeqStmtNode>();
    if (!seq) return std::nullopt;
    std::vector<Effects> effects;
    std::optional<size_t> fill;
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      effects.push_back(EffectsOf(seq->seq[i], data_));
      if (!effects.back().stores.count(data_)) continue;
      if (fill) return std::nullopt;  // a second statement stores to B
      fill = i;
    }
    if (!fill) return std::nullopt;
    const Effects& w = effects[*fill];
    if (w.impure || w.loads.count(data_) || w.multi_index ||
        w.stores != std::unordered_set<const ir::VarNode*>{data_}) {
      return std::nullopt;
    }
    bool read = false;
    for (size_t i = 0; i < effects.size(); ++i) {
      if (i == *fill) continue;
      if (effects[i].multi_index) return std::nullopt;
      if (effects[i].loads.count(data_) && i < *fill) return std::nullopt;
      read |= effects[i].loads.count(data_) > 0;
      for (const ir::VarNode* source : w.loads) {
        if (effects[i].stores.count(source)) return std::nullopt;
      }
    }
    if (!read) return std::nullopt;
    return fill;
  }

  ir::Stmt Transform(const ir::ForNode* loop, size_t fill_index) const {
    const auto& seq = loop->body.as<ir::SeqStmtNode>()->seq;
    const ir::Stmt& fill = seq[fill_index];
    const ir::Var& k = loop->loop_var;
    const ir::Expr one = ir::IntImm(k.dtype(), 1);
    const ir::Expr two = ir::IntImm(k.dtype(), 2);

    ir::Stmt prefetch = Redirect(data_, wide_, ir::MakeZero(size_.dtype()))
                            .MutateStmt(RenewDefs(fill, {{k.get(), loop->min}}));
    if (!ir::AsConstInt(loop->extent)) {
      prefetch = ir::IfThenElse(loop->extent > 0, prefetch);
    } else if (*ir::AsConstInt(loop->extent) <= 0) {
      prefetch = ir::Stmt();
    }
    ir::Expr next_copy = ir::floormod(k + one - loop->min, two) * size_;
    ir::Stmt fill_next =
        Redirect(data_, wide_, next_copy).MutateStmt(RenewDefs(fill, {{k.get(), k + one}}));
    fill_next = ir::IfThenElse(k + one < loop->min + loop->extent, fill_next);

    Redirect read(data_, wide_, ir::floormod(k - loop->min, two) * size_);
    std::vector<ir::Stmt> body;
    for (size_t i = 0; i < seq.size(); ++i) {
      body.push_back(i == fill_index ? fill_next : read.MutateStmt(seq[i]));
    }
    ir::Stmt new_loop = ir::For(k, loop->min, loop->extent, loop->for_kind,
                                ir::SeqStmt(std::move(body)), loop->thread_tag);
    return ir::SeqStmt({prefetch, new_loop});
  }

  const ir::VarNode* data_;
  ir::Expr size_;
  ir::Buffer wide_;
};

// The double-buffered form of `attr [B] double_buffer_scope { allocate B {...} }`, or undefined if
// the pattern does not hold.
ir::Stmt Apply(const ir::AttrStmtNode* attr) {
  const auto* alloc = attr->body.as<ir::AllocateNode>();
  if (!alloc || alloc->buffer->data.get() != attr->node.get() ||
      DataEscapes(alloc->body, alloc->buffer->data.get())) {
    return ir::Stmt();
  }
  ir::Buffer wide = alloc->buffer.WithShape({alloc->buffer->shape[0] * 2}, {});
  ir::Stmt body = DoubleBufferer(alloc->buffer, wide).Rewrite(alloc->body);
  return body.defined() ? ir::Allocate(wide, body) : ir::Stmt();
}

// The double_buffer_scope attribute s is, with the Allocate it holds, if any.
const ir::AttrStmtNode* AsScope(const ir::Stmt& s) {
  const auto* attr = s.as<ir::AttrStmtNode>();
  if (!attr || attr->key != ir::attr::kDoubleBufferScope) return nullptr;
  const auto* alloc = attr->body.as<ir::AllocateNode>();
  return alloc && alloc->buffer->data.get() == attr->node.get() ? attr : nullptr;
}

class InjectPass : public ir::IRMutator {
 protected:
  ir::Stmt Mutate_(const ir::AttrStmtNode* op, const ir::Stmt& self) override {
    ir::Stmt visited = ir::IRMutator::Mutate_(op, self);
    const auto* attr = visited.as<ir::AttrStmtNode>();
    if (!attr || attr->key != ir::attr::kDoubleBufferScope) return visited;
    ir::Stmt applied = Apply(attr);
    return applied.defined() ? applied : visited;
  }

  // A serial loop whose body holds scoped Allocates among its top statements (the form schedule
  // lowering emits), possibly inside plain Allocates there (a buffer of an earlier stage computed
  // at the same loop): each moves out of the loop, the plain ones too, then the scoped ones take
  // the pattern above. A buffer the pattern refuses stays where it was.
  ir::Stmt Mutate_(const ir::ForNode* op, const ir::Stmt& self) override {
    ir::Stmt visited = ir::IRMutator::Mutate_(op, self);
    const auto* loop = visited.as<ir::ForNode>();
    if (!loop || loop->for_kind != ir::ForKind::kSerial) return visited;
    std::unordered_set<const ir::VarNode*> refused;
    for (;;) {
      std::vector<Opened> opened;
      std::vector<ir::Stmt> top;
      Unwrap(loop->body, loop->loop_var.get(), refused, &opened, &top);
      if (opened.empty()) return visited;
      ir::Stmt result = ir::For(loop->loop_var, loop->min, loop->extent, loop->for_kind,
                                ir::SeqStmt(std::move(top)), loop->thread_tag);
      for (size_t i = opened.size(); i-- > 0 && result.defined();) {
        if (opened[i].plain != nullptr) {
          result = ir::Allocate(opened[i].plain->buffer, result);
          continue;
        }
        const ir::AttrStmtNode* scope = opened[i].scope;
        const auto* alloc = scope->body.as<ir::AllocateNode>();
        ir::Stmt hoisted = ir::AttrStmt(scope->node, scope->key, scope->value,
                                        ir::Allocate(alloc->buffer, result));
        result = Apply(hoisted.as<ir::AttrStmtNode>());
        if (!result.defined()) refused.insert(alloc->buffer->data.get());
      }
      if (result.defined()) return result;
    }
  }

 private:
  // A scoped Allocate (scope) or a plain one (plain) opened out of a loop's body.
  struct Opened {
    const ir::AttrStmtNode* scope;
    const ir::AllocateNode* plain;
  };

  // Whether a scope Unwrap would open (not refused) is among s's top statements, looking
  // through sequences and plain Allocates.
  static bool HoldsScope(const ir::Stmt& s, const std::unordered_set<const ir::VarNode*>& refused) {
    if (const auto* seq = s.as<ir::SeqStmtNode>()) {
      for (const ir::Stmt& child : seq->seq) {
        if (HoldsScope(child, refused)) return true;
      }
      return false;
    }
    if (const ir::AttrStmtNode* scope = AsScope(s)) {
      return !refused.count(scope->body.as<ir::AllocateNode>()->buffer->data.get());
    }
    if (const auto* alloc = s.as<ir::AllocateNode>()) return HoldsScope(alloc->body, refused);
    return false;
  }

  // Splits a loop body into its top statements, opening every scoped Allocate among them whose
  // size does not use the loop variable (and is not refused), and every plain Allocate of such a
  // size that holds one; those go to `opened`, outermost first. Nothing is opened when no scope
  // is.
  static void Unwrap(const ir::Stmt& s, const ir::VarNode* loop_var,
                     const std::unordered_set<const ir::VarNode*>& refused,
                     std::vector<Opened>* opened, std::vector<ir::Stmt>* top) {
    if (const auto* seq = s.as<ir::SeqStmtNode>()) {
      for (const ir::Stmt& child : seq->seq) Unwrap(child, loop_var, refused, opened, top);
      return;
    }
    if (const ir::AttrStmtNode* scope = AsScope(s)) {
      const auto* alloc = scope->body.as<ir::AllocateNode>();
      if (!refused.count(alloc->buffer->data.get()) &&
          !UsesVar(alloc->buffer->shape[0], {loop_var})) {
        opened->push_back({scope, nullptr});
        Unwrap(alloc->body, loop_var, refused, opened, top);
        return;
      }
    }
    if (const auto* alloc = s.as<ir::AllocateNode>()) {
      if (!UsesVar(alloc->buffer->shape[0], {loop_var}) && HoldsScope(alloc->body, refused)) {
        opened->push_back({nullptr, alloc});
        Unwrap(alloc->body, loop_var, refused, opened, top);
        return;
      }
    }
    top->push_back(s);
  }
};

}  // namespace

ir::Stmt InjectDoubleBuffer(ir::Stmt stmt) { return InjectPass().MutateStmt(stmt); }

}  // namespace tessel::transforms
