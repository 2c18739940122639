#include "compiler/ir/structural_equal.h"

#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>

#include "compiler/support/check.h"

namespace tessel::ir {
namespace {

// Walks two trees side by side.
class Comparer {
 public:
  explicit Comparer(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  bool Eq(const Expr& a, const Expr& b) {
    if (!a.defined() && !b.defined()) return true;
    if (a.same_as(b) && Trivial()) return true;
    if (!a.defined() || !b.defined()) return false;
    if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
    switch (a.kind()) {
      case NodeKind::kIntImm:
        return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
      case NodeKind::kFloatImm: {
        const double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
        return std::memcmp(&x, &y, sizeof(x)) == 0;
      }
      case NodeKind::kStringImm:
        return a.as<StringImmNode>()->value == b.as<StringImmNode>()->value;
      case NodeKind::kVar:
        return VarEq(a.as<VarNode>(), b.as<VarNode>());
      case NodeKind::kCast:
        return Eq(a.as<CastNode>()->value, b.as<CastNode>()->value);
#define TESSEL_X(name)                                           \
  case NodeKind::k##name: {                                      \
    const auto *x = a.as<name##Node>(), *y = b.as<name##Node>(); \
    return Eq(x->a, y->a) && Eq(x->b, y->b);                     \
  }
        TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
      case NodeKind::kNot:
        return Eq(a.as<NotNode>()->a, b.as<NotNode>()->a);
      case NodeKind::kSelect: {
        const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
        return Eq(x->condition, y->condition) && Eq(x->true_value, y->true_value) &&
               Eq(x->false_value, y->false_value);
      }
      case NodeKind::kRamp: {
        const auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
        return x->lanes == y->lanes && Eq(x->base, y->base) && Eq(x->stride, y->stride);
      }
      case NodeKind::kBroadcast: {
        const auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
        return x->lanes == y->lanes && Eq(x->value, y->value);
      }
      case NodeKind::kLet: {
        const auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
        return Eq(x->value, y->value) && Bind(x->var.get(), y->var.get()) && Eq(x->body, y->body);
      }
      case NodeKind::kCall: {
        const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
        return x->op == y->op && EqAll(x->args, y->args);
      }
      case NodeKind::kBufferLoad: {
        const auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
        return BufferEq(x->buffer, y->buffer) && EqAll(x->indices, y->indices);
      }
      case NodeKind::kProducerLoad: {
        const auto *x = a.as<ProducerLoadNode>(), *y = b.as<ProducerLoadNode>();
        return x->producer.get() == y->producer.get() && EqAll(x->indices, y->indices);
      }
      case NodeKind::kReduce: {
        const auto *x = a.as<ReduceNode>(), *y = b.as<ReduceNode>();
        if (x->value_index != y->value_index || x->axis.size() != y->axis.size()) return false;
        for (size_t k = 0; k < x->axis.size(); ++k) {
          if (!Eq(x->axis[k]->dom.min, y->axis[k]->dom.min) ||
              !Eq(x->axis[k]->dom.extent, y->axis[k]->dom.extent) ||
              !Bind(x->axis[k]->var.get(), y->axis[k]->var.get())) {
            return false;
          }
        }
        return ReducerEq(x->combiner, y->combiner) && EqAll(x->source, y->source) &&
               Eq(x->condition, y->condition);
      }
      default:
        TESSEL_UNREACHABLE() << NodeKindName(a.kind());
    }
  }

  bool Eq(const Stmt& a, const Stmt& b) {
    if (!a.defined() && !b.defined()) return true;  // e.g. two absent else branches
    if (a.same_as(b) && Trivial()) return true;
    if (!a.defined() || !b.defined() || a.kind() != b.kind()) return false;
    switch (a.kind()) {
      case NodeKind::kLetStmt: {
        const auto *x = a.as<LetStmtNode>(), *y = b.as<LetStmtNode>();
        return Eq(x->value, y->value) && Bind(x->var.get(), y->var.get()) && Eq(x->body, y->body);
      }
      case NodeKind::kAttrStmt: {
        const auto *x = a.as<AttrStmtNode>(), *y = b.as<AttrStmtNode>();
        return x->key == y->key && AttrNodeEq(x->node, y->node) && Eq(x->value, y->value) &&
               Eq(x->body, y->body);
      }
      case NodeKind::kAssertStmt: {
        const auto *x = a.as<AssertStmtNode>(), *y = b.as<AssertStmtNode>();
        return x->message == y->message && Eq(x->condition, y->condition) && Eq(x->body, y->body);
      }
      case NodeKind::kBufferStore: {
        const auto *x = a.as<BufferStoreNode>(), *y = b.as<BufferStoreNode>();
        return BufferEq(x->buffer, y->buffer) && Eq(x->value, y->value) &&
               EqAll(x->indices, y->indices);
      }
      case NodeKind::kBufferRealize: {
        const auto *x = a.as<BufferRealizeNode>(), *y = b.as<BufferRealizeNode>();
        if (x->bounds.size() != y->bounds.size()) return false;
        for (size_t k = 0; k < x->bounds.size(); ++k) {
          if (!Eq(x->bounds[k].min, y->bounds[k].min) ||
              !Eq(x->bounds[k].extent, y->bounds[k].extent)) {
            return false;
          }
        }
        return Bind(x->buffer->data.get(), y->buffer->data.get()) &&
               BufferEq(x->buffer, y->buffer) && Eq(x->body, y->body);
      }
      case NodeKind::kAllocate: {
        const auto *x = a.as<AllocateNode>(), *y = b.as<AllocateNode>();
        return Bind(x->buffer->data.get(), y->buffer->data.get()) &&
               BufferEq(x->buffer, y->buffer) && Eq(x->body, y->body);
      }
      case NodeKind::kFor: {
        const auto *x = a.as<ForNode>(), *y = b.as<ForNode>();
        return x->for_kind == y->for_kind && x->thread_tag == y->thread_tag && Eq(x->min, y->min) &&
               Eq(x->extent, y->extent) && Bind(x->loop_var.get(), y->loop_var.get()) &&
               Eq(x->body, y->body);
      }
      case NodeKind::kIfThenElse: {
        const auto *x = a.as<IfThenElseNode>(), *y = b.as<IfThenElseNode>();
        return Eq(x->condition, y->condition) && Eq(x->then_case, y->then_case) &&
               Eq(x->else_case, y->else_case);
      }
      case NodeKind::kSeqStmt: {
        const auto *x = a.as<SeqStmtNode>(), *y = b.as<SeqStmtNode>();
        if (x->seq.size() != y->seq.size()) return false;
        for (size_t k = 0; k < x->seq.size(); ++k) {
          if (!Eq(x->seq[k], y->seq[k])) return false;
        }
        return true;
      }
      case NodeKind::kEvaluate:
        return Eq(a.as<EvaluateNode>()->value, b.as<EvaluateNode>()->value);
      default:
        TESSEL_UNREACHABLE() << NodeKindName(a.kind());
    }
  }

 private:
  // Whether a shared subtree is equal to itself without looking inside: only while no variable
  // has been paired, since a pairing could disagree with the subtree's own variables.
  bool Trivial() const { return !map_free_vars_ && a_to_b_.empty(); }

  bool EqAll(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k) {
      if (!Eq(a[k], b[k])) return false;
    }
    return true;
  }

  // Records that a and b are bound at corresponding places.
  bool Bind(const VarNode* a, const VarNode* b) {
    if (a->dtype != b->dtype) return false;
    auto [ita, new_a] = a_to_b_.emplace(a, b);
    auto [itb, new_b] = b_to_a_.emplace(b, a);
    return ita->second == b && itb->second == a;
  }

  bool VarEq(const VarNode* a, const VarNode* b) {
    auto it = a_to_b_.find(a);
    if (it != a_to_b_.end()) return it->second == b;
    if (b_to_a_.count(b)) return false;
    if (map_free_vars_) return Bind(a, b);
    return a == b;
  }

  bool BufferEq(const Buffer& a, const Buffer& b) {
    if (a.same_as(b)) return true;
    return a->dtype == b->dtype && a->scope == b->scope && VarEq(a->data.get(), b->data.get()) &&
           EqAll(a->shape, b->shape) && EqAll(a->strides, b->strides);
  }

  bool ReducerEq(const CommReducer& a, const CommReducer& b) {
    if (a.same_as(b)) return true;
    if (a.size() != b.size()) return false;
    for (int k = 0; k < a.size(); ++k) {
      if (!Bind(a->lhs[k].get(), b->lhs[k].get()) || !Bind(a->rhs[k].get(), b->rhs[k].get())) {
        return false;
      }
    }
    return EqAll(a->result, b->result) && EqAll(a->identity, b->identity);
  }

  bool AttrNodeEq(const Ref<const Object>& a, const Ref<const Object>& b) {
    if (a.get() == b.get()) return true;
    if (!a || !b) return false;
    const auto* iva = dynamic_cast<const IterVarNode*>(a.get());
    const auto* ivb = dynamic_cast<const IterVarNode*>(b.get());
    if (iva && ivb) {
      return iva->thread_tag == ivb->thread_tag && iva->type == ivb->type &&
             VarEq(iva->var.get(), ivb->var.get());
    }
    const auto* va = dynamic_cast<const VarNode*>(a.get());
    const auto* vb = dynamic_cast<const VarNode*>(b.get());
    if (va && vb) return VarEq(va, vb);
    return false;
  }

  bool map_free_vars_;
  std::unordered_map<const VarNode*, const VarNode*> a_to_b_, b_to_a_;
};

// Hashes a tree; variables by order of first appearance.
class Hasher {
 public:
  size_t Hash(const Expr& e) {
    if (!e.defined()) return 0x9e3779b9;
    size_t h = Mix(static_cast<size_t>(e.kind()), Dtype(e.dtype()));
    switch (e.kind()) {
      case NodeKind::kIntImm:
        return Mix(h, std::hash<int64_t>()(e.as<IntImmNode>()->value));
      case NodeKind::kFloatImm:
        return Mix(h, std::hash<double>()(e.as<FloatImmNode>()->value));
      case NodeKind::kStringImm:
        return Mix(h, std::hash<std::string>()(e.as<StringImmNode>()->value));
      case NodeKind::kVar:
        return Mix(h, VarIndex(e.as<VarNode>()));
      case NodeKind::kCast:
        return Mix(h, Hash(e.as<CastNode>()->value));
#define TESSEL_X(name)                          \
  case NodeKind::k##name: {                     \
    const auto* x = e.as<name##Node>();         \
    return Mix(Mix(h, Hash(x->a)), Hash(x->b)); \
  }
        TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
      case NodeKind::kNot:
        return Mix(h, Hash(e.as<NotNode>()->a));
      case NodeKind::kSelect: {
        const auto* x = e.as<SelectNode>();
        return Mix(Mix(Mix(h, Hash(x->condition)), Hash(x->true_value)), Hash(x->false_value));
      }
      case NodeKind::kRamp: {
        const auto* x = e.as<RampNode>();
        return Mix(Mix(Mix(h, Hash(x->base)), Hash(x->stride)), x->lanes);
      }
      case NodeKind::kBroadcast: {
        const auto* x = e.as<BroadcastNode>();
        return Mix(Mix(h, Hash(x->value)), x->lanes);
      }
      case NodeKind::kLet: {
        const auto* x = e.as<LetNode>();
        h = Mix(h, Hash(x->value));
        h = Mix(h, VarIndex(x->var.get()));
        return Mix(h, Hash(x->body));
      }
      case NodeKind::kCall: {
        const auto* x = e.as<CallNode>();
        return HashAll(Mix(h, static_cast<size_t>(x->op)), x->args);
      }
      case NodeKind::kBufferLoad: {
        const auto* x = e.as<BufferLoadNode>();
        return HashAll(Mix(h, VarIndex(x->buffer->data.get())), x->indices);
      }
      case NodeKind::kProducerLoad: {
        const auto* x = e.as<ProducerLoadNode>();
        return HashAll(Mix(h, std::hash<std::string>()(x->producer->producer_name())), x->indices);
      }
      case NodeKind::kReduce: {
        const auto* x = e.as<ReduceNode>();
        for (const IterVar& iv : x->axis) {
          h = Mix(Mix(Mix(h, Hash(iv->dom.min)), Hash(iv->dom.extent)), VarIndex(iv->var.get()));
        }
        const CommReducerNode* c = x->combiner.get();
        for (size_t k = 0; k < c->lhs.size(); ++k) {
          h = Mix(Mix(h, VarIndex(c->lhs[k].get())), VarIndex(c->rhs[k].get()));
        }
        h = HashAll(HashAll(h, c->result), c->identity);
        return Mix(Mix(HashAll(h, x->source), Hash(x->condition)), x->value_index);
      }
      default:
        TESSEL_UNREACHABLE() << NodeKindName(e.kind());
    }
  }

  size_t Hash(const Stmt& s) {
    if (!s.defined()) return 0x7f4a7c15;
    size_t h = static_cast<size_t>(s.kind()) * 0x100000001b3ull;
    switch (s.kind()) {
      case NodeKind::kLetStmt: {
        const auto* x = s.as<LetStmtNode>();
        h = Mix(Mix(h, Hash(x->value)), VarIndex(x->var.get()));
        return Mix(h, Hash(x->body));
      }
      case NodeKind::kAttrStmt: {
        const auto* x = s.as<AttrStmtNode>();
        return Mix(Mix(Mix(h, std::hash<std::string>()(x->key)), Hash(x->value)), Hash(x->body));
      }
      case NodeKind::kAssertStmt: {
        const auto* x = s.as<AssertStmtNode>();
        return Mix(Mix(h, Hash(x->condition)), Hash(x->body));
      }
      case NodeKind::kBufferStore: {
        const auto* x = s.as<BufferStoreNode>();
        h = Mix(Mix(h, VarIndex(x->buffer->data.get())), Hash(x->value));
        return HashAll(h, x->indices);
      }
      case NodeKind::kBufferRealize: {
        const auto* x = s.as<BufferRealizeNode>();
        for (const Range& r : x->bounds) h = Mix(Mix(h, Hash(r.min)), Hash(r.extent));
        h = Mix(Mix(h, VarIndex(x->buffer->data.get())), Dtype(x->buffer->dtype));
        return Mix(h, Hash(x->body));
      }
      case NodeKind::kAllocate: {
        const auto* x = s.as<AllocateNode>();
        h = Mix(Mix(h, VarIndex(x->buffer->data.get())), Dtype(x->buffer->dtype));
        return Mix(HashAll(h, x->buffer->shape), Hash(x->body));
      }
      case NodeKind::kFor: {
        const auto* x = s.as<ForNode>();
        h = Mix(Mix(Mix(h, Hash(x->min)), Hash(x->extent)), static_cast<size_t>(x->for_kind));
        h = Mix(Mix(h, VarIndex(x->loop_var.get())), std::hash<std::string>()(x->thread_tag));
        return Mix(h, Hash(x->body));
      }
      case NodeKind::kIfThenElse: {
        const auto* x = s.as<IfThenElseNode>();
        return Mix(Mix(Mix(h, Hash(x->condition)), Hash(x->then_case)), Hash(x->else_case));
      }
      case NodeKind::kSeqStmt:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) h = Mix(h, Hash(c));
        return h;
      case NodeKind::kEvaluate:
        return Mix(h, Hash(s.as<EvaluateNode>()->value));
      default:
        TESSEL_UNREACHABLE() << NodeKindName(s.kind());
    }
  }

 private:
  static size_t Mix(size_t h, size_t v) {
    return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  }
  static size_t Dtype(DataType t) {
    return static_cast<size_t>(t.code()) | (static_cast<size_t>(t.bits()) << 8) |
           (static_cast<size_t>(t.lanes()) << 16);
  }
  size_t HashAll(size_t h, const std::vector<Expr>& exprs) {
    for (const Expr& e : exprs) h = Mix(h, Hash(e));
    return h;
  }
  size_t VarIndex(const VarNode* v) {
    auto [it, inserted] = index_.emplace(v, index_.size());
    return it->second * 0x2545f4914f6cdd1dull + 17;
  }

  std::unordered_map<const VarNode*, size_t> index_;
};

}  // namespace

bool StructuralEqual(const Expr& a, const Expr& b, bool map_free_vars) {
  return Comparer(map_free_vars).Eq(a, b);
}

bool StructuralEqual(const Stmt& a, const Stmt& b, bool map_free_vars) {
  return Comparer(map_free_vars).Eq(a, b);
}

size_t StructuralHash(const Expr& e) { return Hasher().Hash(e); }
size_t StructuralHash(const Stmt& s) { return Hasher().Hash(s); }

}  // namespace tessel::ir
