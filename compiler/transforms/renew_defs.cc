#include "compiler/transforms/renew_defs.h"

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::transforms {
namespace {

class Renewer : public ir::IRMutator {
 public:
  explicit Renewer(const VarMap& subst) : map_(subst) {}

 protected:
  ir::Expr Mutate_(const ir::VarNode* op, const ir::Expr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

  ir::Expr Mutate_(const ir::LetNode* op, const ir::Expr&) override {
    ir::Expr value = MutateExpr(op->value);
    ir::Var var = Fresh(op->var);
    return ir::Let(var, value, MutateExpr(op->body));
  }

  ir::Expr Mutate_(const ir::BufferLoadNode* op, const ir::Expr& self) override {
    bool changed = false;
    std::vector<ir::Expr> indices = MutateAll(op->indices, &changed);
    ir::Buffer buffer = MapBuffer(op->buffer);
    if (!changed && buffer.same_as(op->buffer)) return self;
    return ir::BufferLoad(buffer, std::move(indices));
  }

  ir::Stmt Mutate_(const ir::LetStmtNode* op, const ir::Stmt&) override {
    ir::Expr value = MutateExpr(op->value);
    ir::Var var = Fresh(op->var);
    return ir::LetStmt(var, value, MutateStmt(op->body));
  }

  ir::Stmt Mutate_(const ir::ForNode* op, const ir::Stmt&) override {
    ir::Expr min = MutateExpr(op->min);
    ir::Expr extent = MutateExpr(op->extent);
    ir::Var var = Fresh(op->loop_var);
    return ir::For(var, min, extent, op->for_kind, MutateStmt(op->body), op->thread_tag);
  }

  ir::Stmt Mutate_(const ir::AllocateNode* op, const ir::Stmt&) override {
    Fresh(op->buffer->data);
    ir::Buffer buffer = MapBuffer(op->buffer);
    return ir::Allocate(buffer, MutateStmt(op->body));
  }

  ir::Stmt Mutate_(const ir::BufferRealizeNode* op, const ir::Stmt&) override {
    std::vector<ir::Range> bounds;
    for (const ir::Range& r : op->bounds)
      bounds.push_back({MutateExpr(r.min), MutateExpr(r.extent)});
    Fresh(op->buffer->data);
    ir::Buffer buffer = MapBuffer(op->buffer);
    return ir::BufferRealize(buffer, std::move(bounds), MutateStmt(op->body));
  }

  ir::Stmt Mutate_(const ir::BufferStoreNode* op, const ir::Stmt& self) override {
    ir::Expr value = MutateExpr(op->value);
    bool changed = !value.same_as(op->value);
    std::vector<ir::Expr> indices = MutateAll(op->indices, &changed);
    ir::Buffer buffer = MapBuffer(op->buffer);
    if (!changed && buffer.same_as(op->buffer)) return self;
    return ir::BufferStore(buffer, value, std::move(indices));
  }

  ir::Stmt Mutate_(const ir::AttrStmtNode* op, const ir::Stmt& self) override {
    ir::Expr value = op->value.defined() ? MutateExpr(op->value) : op->value;
    Ref<const Object> node = op->node;
    const auto* iv = dynamic_cast<const ir::IterVarNode*>(op->node.get());
    if (iv && (op->key == ir::attr::kThreadExtent || op->key == ir::attr::kVirtualThread)) {
      ir::Range dom{MutateExpr(iv->dom.min), MutateExpr(iv->dom.extent)};
      ir::Var var = Fresh(iv->var);
      node = Ref<const Object>(ir::IterVar(var, dom, iv->type, iv->thread_tag).get());
    } else if (const auto* v = dynamic_cast<const ir::VarNode*>(op->node.get())) {
      auto it = map_.find(v);
      if (it != map_.end() && it->second.as<ir::VarNode>()) {
        node = Ref<const Object>(it->second.as<ir::VarNode>());
      }
    } else if (const auto* b = dynamic_cast<const ir::BufferNode*>(op->node.get())) {
      node = Ref<const Object>(MapBuffer(ir::Buffer(Ref<const ir::BufferNode>(b))).get());
    }
    ir::Stmt body = MutateStmt(op->body);
    if (node.get() == op->node.get() && value.same_as(op->value) && body.same_as(op->body)) {
      return self;
    }
    return ir::AttrStmt(node, op->key, value, body);
  }

 private:
  // Binds a fresh copy of v from here on.
  ir::Var Fresh(const ir::Var& v) {
    ir::Var fresh(v.name(), v.dtype());
    map_[v.get()] = fresh;
    return fresh;
  }

  // The buffer with its data and layout rewritten by the current map (itself if nothing changes).
  ir::Buffer MapBuffer(const ir::Buffer& b) {
    auto cached = buffers_.find(b.get());
    if (cached != buffers_.end()) return cached->second;
    bool changed = false;
    ir::Expr data = MutateExpr(b->data);
    changed |= !data.same_as(b->data);
    std::vector<ir::Expr> shape = MutateAll(b->shape, &changed);
    std::vector<ir::Expr> strides = MutateAll(b->strides, &changed);
    ir::Expr elem_offset = b->elem_offset.defined() ? MutateExpr(b->elem_offset) : b->elem_offset;
    changed |= !elem_offset.same_as(b->elem_offset);
    // Cached per node: a buffer's fields use only variables bound before its accesses, so the
    // first rewrite is the rewrite for all of them.
    ir::Buffer result = b;
    if (changed) {
      TESSEL_CHECK(data.as<ir::VarNode>()) << "buffer " << b.name() << " data replaced by "
                                           << "a non-variable";
      auto node = MakeRef<ir::BufferNode>();
      node->data = ir::Var(Ref<const ir::VarNode>(data.as<ir::VarNode>()));
      node->dtype = b->dtype;
      node->shape = std::move(shape);
      node->strides = std::move(strides);
      node->elem_offset = elem_offset;
      node->name = b->name;
      node->scope = b->scope;
      node->alignment = b->alignment;
      result = ir::Buffer(std::move(node));
    }
    buffers_.emplace(b.get(), result);
    return result;
  }

  VarMap map_;
  std::unordered_map<const ir::BufferNode*, ir::Buffer> buffers_;
};

}  // namespace

ir::Stmt RenewDefs(const ir::Stmt& s, const VarMap& subst) { return Renewer(subst).MutateStmt(s); }

}  // namespace tessel::transforms
