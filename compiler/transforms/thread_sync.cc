#include "compiler/transforms/thread_sync.h"

#include <absl/strings/match.h>

#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"
#include "compiler/transforms/uses_var.h"

namespace tessel::transforms {
namespace {

constexpr char kShared[] = "shared";

// Shared buffers (their data variables) loaded and stored since the last barrier, or by a
// statement.
struct Accesses {
  VarSet reads, writes;

  void Add(const Accesses& other) {
    reads.insert(other.reads.begin(), other.reads.end());
    writes.insert(other.writes.begin(), other.writes.end());
  }
  // Whether other, run after this, completes a hazard.
  bool Conflicts(const Accesses& later) const {
    for (const ir::VarNode* v : later.reads) {
      if (writes.count(v)) return true;
    }
    for (const ir::VarNode* v : later.writes) {
      if (reads.count(v)) return true;
    }
    return false;
  }
  bool operator==(const Accesses& other) const {
    return reads == other.reads && writes == other.writes;
  }
};

bool IsBarrier(const ir::Stmt& s) {
  const auto* eval = s.as<ir::EvaluateNode>();
  const auto* call = eval ? eval->value.as<ir::CallNode>() : nullptr;
  if (!call || call->op != ir::Intrinsic::kStorageSync) return false;
  const auto* scope = call->args[0].as<ir::StringImmNode>();
  return scope && scope->value == kShared;
}

int CountBarriers(const ir::Stmt& s) {
  int count = 0;
  ir::PreOrderVisit(s, nullptr, [&](const ir::Stmt& st) { count += IsBarrier(st); });
  return count;
}

ir::Stmt Barrier() {
  return ir::Evaluate(ir::Call(ir::kInt32, ir::Intrinsic::kStorageSync, {ir::StringImm(kShared)}));
}

// The shared buffers a statement or expression reads and writes (a shared data variable used as a
// value counts as both). Plan asks this of a statement at every level that encloses it and again
// on each pass of a loop's fixed point, and unrolled kernels hold thousands of statements: each
// statement's answer is computed once, from its children's.
class AccessCollector : public ir::IRVisitor {
 public:
  explicit AccessCollector(const VarSet& shared) : shared_(shared) {}

  Accesses Of(const ir::Expr& e) {
    current_ = Accesses();
    VisitExpr(e);
    return std::move(current_);
  }
  Accesses Of(const ir::Stmt& s) {
    current_ = Accesses();
    VisitStmt(s);
    return std::move(current_);
  }

  void VisitExpr(const ir::Expr& e) override {
    if (const auto* load = e.as<ir::BufferLoadNode>()) {
      if (load->buffer->scope == kShared) current_.reads.insert(load->buffer->data.get());
    } else if (const auto* v = e.as<ir::VarNode>(); v && shared_.count(v)) {
      current_.reads.insert(v);
      current_.writes.insert(v);
    }
    ir::IRVisitor::VisitExpr(e);
  }

  void VisitStmt(const ir::Stmt& s) override {
    if (auto known = known_.find(s.get()); known != known_.end()) {
      current_.Add(known->second.accesses);
      return;
    }
    Accesses enclosing = std::move(current_);
    current_ = Accesses();
    if (const auto* store = s.as<ir::BufferStoreNode>(); store && store->buffer->scope == kShared) {
      current_.writes.insert(store->buffer->data.get());
    }
    ir::IRVisitor::VisitStmt(s);
    known_.emplace(s.get(), Known{s, current_});
    enclosing.Add(current_);
    current_ = std::move(enclosing);
  }

 private:
  struct Known {
    ir::Stmt stmt;  // held, so that its address is not reused while the entry lives
    Accesses accesses;
  };
  const VarSet& shared_;
  Accesses current_;
  std::unordered_map<const ir::StmtNode*, Known> known_;
};

class Planner {
 public:
  explicit Planner(VarSet shared) : shared_(std::move(shared)) {}

  // s with barriers; *state holds the accesses since the last barrier, before and after s.
  ir::Stmt Plan(const ir::Stmt& s, Accesses* state) {
    if (!state->Conflicts(Of(s)) || (in_threads_ == 0 && !IsUnit(s))) return PlanInside(s, state);
    if (s.kind() == ir::NodeKind::kFor && !IsUnit(s)) {
      // A loop whose body synchronizes anyway before touching what is pending needs no barrier
      // in front: plan it both ways and keep the barrier in front only if planning without it
      // puts more barriers in the body.
      Accesses through = *state;
      ir::Stmt without = PlanInside(s, &through);
      Accesses after_barrier;
      ir::Stmt with = PlanInside(s, &after_barrier);
      if (CountBarriers(without) <= CountBarriers(with)) {
        *state = through;
        return without;
      }
      *state = after_barrier;
      return ir::SeqStmt({Barrier(), with});
    }
    *state = Accesses();
    return ir::SeqStmt({Barrier(), PlanInside(s, state)});
  }

 private:
  ir::Stmt PlanInside(const ir::Stmt& s, Accesses* state) {
    if (IsBarrier(s)) {
      *state = Accesses();
      return s;
    }
    if (IsUnit(s)) {
      state->Add(Of(s));
      return s;
    }
    switch (s.kind()) {
      case ir::NodeKind::kSeqStmt: {
        std::vector<ir::Stmt> seq;
        bool changed = false;
        for (const ir::Stmt& child : s.as<ir::SeqStmtNode>()->seq) {
          seq.push_back(Plan(child, state));
          changed |= !seq.back().same_as(child);
        }
        return changed ? ir::SeqStmt(std::move(seq)) : s;
      }
      case ir::NodeKind::kFor:
        return PlanLoop(s, s.as<ir::ForNode>(), state);
      case ir::NodeKind::kIfThenElse: {
        const auto* op = s.as<ir::IfThenElseNode>();
        state->Add(Of(op->condition));
        Accesses other = *state;
        ir::Stmt then_case = Plan(op->then_case, state);
        ir::Stmt else_case;
        if (op->else_case.defined()) else_case = Plan(op->else_case, &other);
        state->Add(other);
        if (then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) return s;
        return ir::IfThenElse(op->condition, then_case, else_case);
      }
      case ir::NodeKind::kLetStmt: {
        const auto* op = s.as<ir::LetStmtNode>();
        state->Add(Of(op->value));
        if (UsesVar(op->value, thread_vars_)) thread_vars_.insert(op->var.get());
        return Rebuild(s, op->body, Plan(op->body, state),
                       [&](ir::Stmt b) { return ir::LetStmt(op->var, op->value, b); });
      }
      case ir::NodeKind::kAttrStmt: {
        const auto* op = s.as<ir::AttrStmtNode>();
        if (op->value.defined()) state->Add(Of(op->value));
        return Rebuild(s, op->body, Plan(op->body, state),
                       [&](ir::Stmt b) { return ir::AttrStmt(op->node, op->key, op->value, b); });
      }
      case ir::NodeKind::kAssertStmt: {
        const auto* op = s.as<ir::AssertStmtNode>();
        state->Add(Of(op->condition));
        return Rebuild(s, op->body, Plan(op->body, state),
                       [&](ir::Stmt b) { return ir::AssertStmt(op->condition, op->message, b); });
      }
      case ir::NodeKind::kAllocate: {
        const auto* op = s.as<ir::AllocateNode>();
        return Rebuild(s, op->body, Plan(op->body, state),
                       [&](ir::Stmt b) { return ir::Allocate(op->buffer, b); });
      }
      case ir::NodeKind::kBufferRealize: {
        const auto* op = s.as<ir::BufferRealizeNode>();
        return Rebuild(s, op->body, Plan(op->body, state),
                       [&](ir::Stmt b) { return ir::BufferRealize(op->buffer, op->bounds, b); });
      }
      default:
        state->Add(Of(s));
        return s;
    }
  }

  // make(body), or self if the body did not change.
  template <typename Make>
  static ir::Stmt Rebuild(const ir::Stmt& self, const ir::Stmt& old_body, const ir::Stmt& body,
                          Make make) {
    return body.same_as(old_body) ? self : make(body);
  }

  ir::Stmt PlanLoop(const ir::Stmt& self, const ir::ForNode* op, Accesses* state) {
    auto rebuild = [&](ir::Stmt body) {
      return Rebuild(self, op->body, body, [&](ir::Stmt b) {
        return ir::For(op->loop_var, op->min, op->extent, op->for_kind, b, op->thread_tag);
      });
    };
    state->Add(Of(op->min));
    state->Add(Of(op->extent));
    if (op->for_kind == ir::ForKind::kThreadBinding) {
      if (absl::StartsWith(op->thread_tag, "blockIdx.")) {
        // Each block has its own shared memory: nothing flows in or out.
        Accesses block;
        return rebuild(Plan(op->body, &block));
      }
      if (absl::StartsWith(op->thread_tag, "threadIdx.")) {
        ++in_threads_;
        thread_vars_.insert(op->loop_var.get());
        ir::Stmt body = Plan(op->body, state);
        --in_threads_;
        return rebuild(body);
      }
    }
    // A loop: what the end of one iteration leaves pending reaches the start of the next.
    Accesses carried;
    for (;;) {
      Accesses entry = *state;
      entry.Add(carried);
      Accesses exit = entry;
      ir::Stmt body = Plan(op->body, &exit);
      Accesses grown = carried;
      grown.Add(exit);
      if (grown == carried) {
        const int64_t* extent = ir::AsConstInt(op->extent);
        if (extent && *extent > 0) {
          *state = exit;
        } else {
          state->Add(exit);  // the loop may not run at all
        }
        return rebuild(body);
      }
      carried = std::move(grown);
    }
  }

  // A statement planned as one piece: a store or Evaluate, or a loop or if that threads may take
  // differently (no barrier may go inside).
  bool IsUnit(const ir::Stmt& s) const {
    switch (s.kind()) {
      case ir::NodeKind::kBufferStore:
      case ir::NodeKind::kEvaluate:
        return true;
      case ir::NodeKind::kIfThenElse:
        return in_threads_ > 0 && UsesVar(s.as<ir::IfThenElseNode>()->condition, thread_vars_);
      case ir::NodeKind::kFor: {
        const auto* op = s.as<ir::ForNode>();
        return in_threads_ > 0 &&
               (UsesVar(op->min, thread_vars_) || UsesVar(op->extent, thread_vars_));
      }
      default:
        return false;
    }
  }

  Accesses Of(const ir::Expr& e) { return accesses_.Of(e); }
  Accesses Of(const ir::Stmt& s) { return accesses_.Of(s); }

  const VarSet shared_;
  AccessCollector accesses_{shared_};
  VarSet thread_vars_;
  int in_threads_ = 0;
};

// The data variables of the shared buffers in s.
VarSet SharedBuffers(const ir::Stmt& s) {
  VarSet shared;
  ir::PreOrderVisit(
      s,
      [&](const ir::Expr& e) {
        if (const auto* load = e.as<ir::BufferLoadNode>(); load && load->buffer->scope == kShared) {
          shared.insert(load->buffer->data.get());
        }
      },
      [&](const ir::Stmt& st) {
        const ir::Buffer* b = nullptr;
        if (const auto* store = st.as<ir::BufferStoreNode>()) b = &store->buffer;
        if (const auto* alloc = st.as<ir::AllocateNode>()) b = &alloc->buffer;
        if (const auto* realize = st.as<ir::BufferRealizeNode>()) b = &realize->buffer;
        if (b && (*b)->scope == kShared) shared.insert((*b)->data.get());
      });
  return shared;
}

}  // namespace

ir::Stmt ThreadSync(ir::Stmt stmt) {
  VarSet shared = SharedBuffers(stmt);
  if (shared.empty()) return stmt;
  Accesses state;
  return Planner(std::move(shared)).Plan(stmt, &state);
}

}  // namespace tessel::transforms
