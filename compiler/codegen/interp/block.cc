// Thread blocks with barriers, executed sequentially but as a GPU would.
//
// A threadIdx loop whose body holds a barrier (storage_sync) starts a thread block. Its threads
// are all combinations of the threadIdx indices used inside it (the extents are computed where
// the block starts), and each thread gets its own Frame: its own variables and its own
// non-"shared" storage. The statements of the block that hold a barrier compile to BlockCode,
// which all threads run together; the barrier-free statements between them compile to ordinary
// code, run thread after thread. So every thread finishes the phase before a barrier before any
// thread starts the phase after it, which is all a barrier promises.
//
// Control flow that encloses a barrier must be the same in every thread (a loop's bounds, an if's
// condition); the block checks it and faults otherwise. Let bindings and assertions may differ
// per thread. A threadIdx loop inside the block gives each thread the iteration of its index.
#include <absl/strings/str_cat.h>

#include "compiler/codegen/interp/compiler.h"
#include "compiler/codegen/interp/storage.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/check.h"

namespace tessel::interp::detail {
namespace {

// More threads than any GPU runs in a block; a larger block is a fault, not an exhausted memory.
constexpr int64_t kMaxThreads = int64_t{1} << 16;

// Names a thread in messages: "threadIdx (x=1, y=0, z=0)".
struct ThreadNames {
  int slots[3];
  std::string Describe(const Frame& f) const {
    return absl::StrCat("threadIdx (x=", f.slots[slots[0]].i, ", y=", f.slots[slots[1]].i,
                        ", z=", f.slots[slots[2]].i, ")");
  }
};

absl::Status NonUniform(const std::string& what, const std::string& first_value,
                        const std::string& first_thread, const std::string& other_value,
                        const std::string& other_thread) {
  return absl::FailedPreconditionError(absl::StrCat(
      "a barrier (storage_sync) is under control flow that differs between the threads of a "
      "block: ",
      what, " is ", first_value, " for ", first_thread, " but ", other_value, " for ",
      other_thread));
}

// Barrier-free code, run by each thread in turn.
class BlockLeaf final : public BlockCode {
 public:
  explicit BlockLeaf(StmtPtr code) : code_(std::move(code)) {}
  void Exec(std::vector<Frame>& threads) const override {
    for (Frame& t : threads) {
      code_->Exec(t);
      if (t.failed()) return;
    }
  }

 private:
  StmtPtr code_;
};

// Nothing to run: a barrier (running everything before it for every thread was the waiting),
// or a discarded stand-in after a compile error.
class BlockNop final : public BlockCode {
 public:
  void Exec(std::vector<Frame>&) const override {}
};

class BlockSeq final : public BlockCode {
 public:
  explicit BlockSeq(std::vector<BlockPtr> seq) : seq_(std::move(seq)) {}
  void Exec(std::vector<Frame>& threads) const override {
    for (const BlockPtr& s : seq_) {
      s->Exec(threads);
      if (threads[0].failed()) return;
    }
  }

 private:
  std::vector<BlockPtr> seq_;
};

// A loop holding a barrier: the same bounds in every thread.
class BlockFor final : public BlockCode {
 public:
  BlockFor(int slot, Compiler::WrapFn wrap, Bound min, Bound extent, BlockPtr body,
           std::string name, ThreadNames names)
      : slot_(slot),
        wrap_(wrap),
        min_(std::move(min)),
        extent_(std::move(extent)),
        body_(std::move(body)),
        name_(std::move(name)),
        names_(names) {}
  void Exec(std::vector<Frame>& threads) const override {
    Frame& first = threads[0];
    const int64_t min = min_.Get(first);
    const int64_t extent = extent_.Get(first);
    for (Frame& t : threads) {
      const int64_t m = min_.Get(t);
      const int64_t e = extent_.Get(t);
      if (m != min || e != extent) {
        t.Fail(NonUniform(absl::StrCat("the range of loop '", name_, "'"),
                          absl::StrCat("[", min, ", ", min + extent, ")"), names_.Describe(first),
                          absl::StrCat("[", m, ", ", m + e, ")"), names_.Describe(t)));
      }
    }
    if (first.failed()) return;
    for (int64_t k = 0; k < extent; ++k) {
      const int64_t value = wrap_(static_cast<uint64_t>(min) + static_cast<uint64_t>(k));
      for (Frame& t : threads) t.slots[slot_].i = value;
      body_->Exec(threads);
      if (first.failed()) return;
    }
  }

 private:
  int slot_;
  Compiler::WrapFn wrap_;
  Bound min_, extent_;
  BlockPtr body_;
  std::string name_;
  ThreadNames names_;
};

// An if holding a barrier: the same condition in every thread.
class BlockIf final : public BlockCode {
 public:
  BlockIf(ExprPtr condition, BlockPtr then_case, BlockPtr else_case, std::string text,
          ThreadNames names)
      : condition_(std::move(condition)),
        then_case_(std::move(then_case)),
        else_case_(std::move(else_case)),
        text_(std::move(text)),
        names_(names) {}
  void Exec(std::vector<Frame>& threads) const override {
    Frame& first = threads[0];
    const bool taken = condition_->Eval(first).i != 0;
    for (Frame& t : threads) {
      if ((condition_->Eval(t).i != 0) != taken) {
        auto word = [](bool b) { return std::string(b ? "true" : "false"); };
        t.Fail(NonUniform(absl::StrCat("the condition of `", text_, "`"), word(taken),
                          names_.Describe(first), word(!taken), names_.Describe(t)));
      }
    }
    if (first.failed()) return;
    if (taken) {
      then_case_->Exec(threads);
    } else if (else_case_) {
      else_case_->Exec(threads);
    }
  }

 private:
  ExprPtr condition_;
  BlockPtr then_case_, else_case_;
  std::string text_;
  ThreadNames names_;
};

// A LetStmt holding a barrier: each thread binds its own value.
class BlockLet final : public BlockCode {
 public:
  BlockLet(int slot, ExprPtr value, BlockPtr body)
      : slot_(slot), value_(std::move(value)), body_(std::move(body)) {}
  void Exec(std::vector<Frame>& threads) const override {
    for (Frame& t : threads) {
      value_->EvalLanes(t, &t.slots[slot_]);
      if (t.failed()) return;
    }
    body_->Exec(threads);
  }

 private:
  int slot_;
  ExprPtr value_;
  BlockPtr body_;
};

class BlockAssert final : public BlockCode {
 public:
  BlockAssert(ExprPtr condition, std::string condition_text, std::string message, BlockPtr body)
      : condition_(std::move(condition)),
        condition_text_(std::move(condition_text)),
        message_(std::move(message)),
        body_(std::move(body)) {}
  void Exec(std::vector<Frame>& threads) const override {
    for (Frame& t : threads) {
      if (!AllLanes(t, *condition_) && !t.failed())
        t.Fail(AssertionFailure(message_, condition_text_));
      if (t.failed()) return;
    }
    body_->Exec(threads);
  }

 private:
  ExprPtr condition_;
  std::string condition_text_;
  std::string message_;
  BlockPtr body_;
};

// A threadIdx loop inside the block: each thread takes the iteration of its index.
class BlockThreadBind final : public BlockCode {
 public:
  BlockThreadBind(int slot, Compiler::WrapFn wrap, Bound min, int index_slot, BlockPtr body)
      : slot_(slot),
        wrap_(wrap),
        min_(std::move(min)),
        index_slot_(index_slot),
        body_(std::move(body)) {}
  void Exec(std::vector<Frame>& threads) const override {
    for (Frame& t : threads) {
      const uint64_t min = static_cast<uint64_t>(min_.Get(t));
      t.slots[slot_].i = wrap_(min + static_cast<uint64_t>(t.slots[index_slot_].i));
    }
    body_->Exec(threads);
  }

 private:
  int slot_;
  Compiler::WrapFn wrap_;
  Bound min_;
  int index_slot_;
  BlockPtr body_;
};

// Allocate or BufferRealize holding a barrier: "shared" storage is one for the block, any other
// one per thread.
class BlockAllocate final : public BlockCode {
 public:
  BlockAllocate(std::unique_ptr<StoragePlan> plan, BlockPtr body)
      : plan_(std::move(plan)), body_(std::move(body)) {}
  void Exec(std::vector<Frame>& threads) const override {
    const int b = plan_->binding;
    std::vector<Storage> storage(plan_->shared() ? 1 : threads.size());
    for (size_t k = 0; k < storage.size(); ++k) {
      if (!plan_->Create(threads[k], &storage[k])) return;
    }
    std::vector<BufferBinding> saved;
    for (size_t k = 0; k < threads.size(); ++k) {
      saved.push_back(threads[k].buffers[b]);
      threads[k].buffers[b] = storage[plan_->shared() ? 0 : k].binding;
    }
    body_->Exec(threads);
    for (size_t k = 0; k < threads.size(); ++k) threads[k].buffers[b] = saved[k];
  }

 private:
  std::unique_ptr<StoragePlan> plan_;
  BlockPtr body_;
};

// Where a block starts: makes the threads and runs the block's body with them.
class ThreadBlockCode final : public StmtCode {
 public:
  struct Extent {
    int axis;
    Bound extent;
    std::string loop;
  };
  ThreadBlockCode(std::vector<Extent> extents, ThreadNames names, BlockPtr body)
      : extents_(std::move(extents)), names_(names), body_(std::move(body)) {}

  void Exec(Frame& f) const override {
    int64_t dims[3] = {-1, -1, -1};
    const std::string* first_loop[3] = {nullptr, nullptr, nullptr};
    for (const Extent& e : extents_) {
      const int64_t extent = e.extent.Get(f);
      if (dims[e.axis] < 0) {
        dims[e.axis] = extent;
        first_loop[e.axis] = &e.loop;
      } else if (dims[e.axis] != extent) {
        f.Fail(
            absl::InvalidArgumentError(absl::StrCat("the threadIdx.", std::string(1, "xyz"[e.axis]),
                                                    " loops of one thread block have "
                                                    "different extents: ",
                                                    dims[e.axis], " (loop '", *first_loop[e.axis],
                                                    "') and ", extent, " (loop '", e.loop, "')")));
      }
    }
    if (f.failed()) return;
    int64_t count = 1;
    for (int64_t& d : dims) {
      if (d < 0) d = 1;
      if (d == 0) return;  // no threads: an empty loop
      count *= std::min(d, kMaxThreads + 1);
      if (count > kMaxThreads) {
        f.Fail(absl::InvalidArgumentError(
            absl::StrCat("a thread block of ", dims[0], " x ", dims[1], " x ", dims[2],
                         " threads is more than the interpreter's limit of ", kMaxThreads)));
        return;
      }
    }
    std::vector<Frame> threads(static_cast<size_t>(count), f);
    for (int64_t t = 0; t < count; ++t) {
      Frame& thread = threads[static_cast<size_t>(t)];
      thread.slots[names_.slots[0]].i = t % dims[0];
      thread.slots[names_.slots[1]].i = (t / dims[0]) % dims[1];
      thread.slots[names_.slots[2]].i = t / (dims[0] * dims[1]);
    }
    body_->Exec(threads);
  }

 private:
  std::vector<Extent> extents_;
  ThreadNames names_;
  BlockPtr body_;
};

// Reports the variables an expression uses that are not in the compiler's scope.
class OutOfScopeVars : public ir::IRVisitor {
 public:
  explicit OutOfScopeVars(const Compiler& c) : c_(c) {}
  std::vector<std::string> names;

 protected:
  void Visit_(const ir::VarNode* op) override {
    if (c_.SlotOf(op) < 0 && !local_.contains(op)) names.push_back(op->name);
  }
  void Visit_(const ir::LetNode* op) override {
    VisitExpr(op->value);
    local_.insert(op->var.get());
    VisitExpr(op->body);
    local_.erase(op->var.get());
  }

 private:
  const Compiler& c_;
  absl::flat_hash_set<const ir::VarNode*> local_;
};

}  // namespace

StmtPtr Compiler::CompileThreadBlock(const ir::Stmt& loop) {
  std::vector<ThreadBlockCode::Extent> extents;
  ir::PreOrderVisit(
      loop, [](const ir::Expr&) {},
      [&](const ir::Stmt& s) {
        const auto* op = s.as<ir::ForNode>();
        if (op == nullptr || op->for_kind != ir::ForKind::kThreadBinding) return;
        const std::optional<ThreadTag> tag = ParseThreadTag(op);
        if (!tag || tag->kind != ThreadTag::Kind::kThread) return;
        OutOfScopeVars uses(*this);
        uses.VisitExpr(op->extent);
        if (!uses.names.empty()) {
          Fail(absl::StrCat("the extent of loop '", op->loop_var.name(), "' (", op->thread_tag,
                            ") uses '", uses.names[0],
                            "', which is not defined where its thread block starts"));
          return;
        }
        extents.push_back(
            {tag->axis, CompileBound(op->extent, "a loop's extent"), op->loop_var.name()});
      });
  ThreadNames names;
  for (int axis = 0; axis < 3; ++axis) {
    if (thread_index_slots_[axis] < 0) thread_index_slots_[axis] = next_slot_++;
    names.slots[axis] = thread_index_slots_[axis];
  }
  in_thread_block_ = true;
  BlockPtr body = CompileBlock(loop);
  in_thread_block_ = false;
  return std::make_unique<ThreadBlockCode>(std::move(extents), names, std::move(body));
}

BlockPtr Compiler::CompileBlock(const ir::Stmt& s) {
  if (!s.defined()) return std::make_unique<BlockNop>();
  if (!HasBarrier(s.get())) return std::make_unique<BlockLeaf>(CompileStmt(s));
  WhereScope where(*this, s);
  ThreadNames names;
  for (int axis = 0; axis < 3; ++axis) names.slots[axis] = thread_index_slot(axis);
  switch (s.kind()) {
    case ir::NodeKind::kSeqStmt: {
      std::vector<BlockPtr> seq;
      for (const ir::Stmt& child : s.as<ir::SeqStmtNode>()->seq) seq.push_back(CompileBlock(child));
      return std::make_unique<BlockSeq>(std::move(seq));
    }
    case ir::NodeKind::kEvaluate:
      CheckBarrier(s.as<ir::EvaluateNode>());
      return std::make_unique<BlockNop>();
    case ir::NodeKind::kFor: {
      const auto* op = s.as<ir::ForNode>();
      std::optional<ThreadTag> tag;
      if (op->for_kind == ir::ForKind::kThreadBinding) {
        tag = ParseThreadTag(op);
        if (!tag) return std::make_unique<BlockNop>();
      }
      Bound min = CompileBound(op->min, "a loop's minimum");
      const WrapFn wrap = WrapOf(op->loop_var.dtype());
      if (wrap == nullptr) {
        Fail(absl::StrCat("loop variable '", op->loop_var.name(), "' must be a scalar integer"));
        return std::make_unique<BlockNop>();
      }
      if (tag) EnterThreadLoop(op, *tag);
      const int slot = DefineVar(op->loop_var.get());
      BlockPtr code;
      if (tag && tag->kind == ThreadTag::Kind::kThread) {
        BlockPtr body = CompileBlock(op->body);
        code = std::make_unique<BlockThreadBind>(slot, wrap, std::move(min),
                                                 thread_index_slot(tag->axis), std::move(body));
      } else {
        Bound extent = CompileBound(op->extent, "a loop's extent");
        BlockPtr body = CompileBlock(op->body);
        code = std::make_unique<BlockFor>(slot, wrap, std::move(min), std::move(extent),
                                          std::move(body), op->loop_var.name(), names);
      }
      EndVar(op->loop_var.get());
      if (tag) LeaveThreadLoop();
      return code;
    }
    case ir::NodeKind::kIfThenElse: {
      const auto* op = s.as<ir::IfThenElseNode>();
      ExprPtr condition = CompileExpr(op->condition);
      BlockPtr then_case = CompileBlock(op->then_case);
      BlockPtr else_case = op->else_case.defined() ? CompileBlock(op->else_case) : nullptr;
      return std::make_unique<BlockIf>(std::move(condition), std::move(then_case),
                                       std::move(else_case), FirstLine(s), names);
    }
    case ir::NodeKind::kLetStmt: {
      const auto* op = s.as<ir::LetStmtNode>();
      ExprPtr value = CompileExpr(op->value);
      const int slot = DefineVar(op->var.get());
      BlockPtr body = CompileBlock(op->body);
      EndVar(op->var.get());
      return std::make_unique<BlockLet>(slot, std::move(value), std::move(body));
    }
    case ir::NodeKind::kAttrStmt:
      return CompileBlock(s.as<ir::AttrStmtNode>()->body);
    case ir::NodeKind::kAssertStmt: {
      const auto* op = s.as<ir::AssertStmtNode>();
      ExprPtr condition = CompileExpr(op->condition);
      BlockPtr body = CompileBlock(op->body);
      return std::make_unique<BlockAssert>(std::move(condition), ir::ToString(op->condition),
                                           op->message, std::move(body));
    }
    case ir::NodeKind::kAllocate:
    case ir::NodeKind::kBufferRealize: {
      const auto* allocate = s.as<ir::AllocateNode>();
      const auto* realize = s.as<ir::BufferRealizeNode>();
      const ir::Buffer& buffer = allocate ? allocate->buffer : realize->buffer;
      const ir::Stmt& body_stmt = allocate ? allocate->body : realize->body;
      if (realize && StorageOf(buffer->data.get()) != nullptr) return CompileBlock(body_stmt);
      std::unique_ptr<StoragePlan> plan = PlanStorage(buffer, realize ? &realize->bounds : nullptr);
      plan->binding = DefineStorage(
          buffer->data, realize ? StorageInfo::Origin::kRealize : StorageInfo::Origin::kAllocate,
          buffer);
      BlockPtr body = CompileBlock(body_stmt);
      EndStorage(buffer->data);
      return std::make_unique<BlockAllocate>(std::move(plan), std::move(body));
    }
    default:
      break;
  }
  TESSEL_UNREACHABLE() << ir::NodeKindName(s.kind()) << " cannot hold a barrier";
}

}  // namespace tessel::interp::detail
