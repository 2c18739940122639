// Compiling statements outside thread blocks (and the barrier-free parts inside them).
#include <absl/strings/str_cat.h>

#include "compiler/codegen/interp/compiler.h"
#include "compiler/codegen/interp/storage.h"
#include "compiler/ir/printer.h"

namespace tessel::interp::detail {
namespace {

class NopCode final : public StmtCode {
 public:
  void Exec(Frame&) const override {}
};

class SeqCode final : public StmtCode {
 public:
  explicit SeqCode(std::vector<StmtPtr> seq) : seq_(std::move(seq)) {}
  void Exec(Frame& f) const override {
    for (const StmtPtr& s : seq_) {
      s->Exec(f);
      if (f.failed()) return;
    }
  }

 private:
  std::vector<StmtPtr> seq_;
};

// Every kind of loop runs sequentially.
class ForCode final : public StmtCode {
 public:
  ForCode(int slot, Compiler::WrapFn wrap, Bound min, Bound extent, StmtPtr body)
      : slot_(slot),
        wrap_(wrap),
        min_(std::move(min)),
        extent_(std::move(extent)),
        body_(std::move(body)) {}
  void Exec(Frame& f) const override {
    const uint64_t min = static_cast<uint64_t>(min_.Get(f));
    const int64_t extent = extent_.Get(f);
    if (f.failed()) return;
    for (int64_t k = 0; k < extent; ++k) {
      f.slots[slot_].i = wrap_(min + static_cast<uint64_t>(k));
      body_->Exec(f);
      if (f.failed()) return;
    }
  }

 private:
  int slot_;
  Compiler::WrapFn wrap_;
  Bound min_, extent_;
  StmtPtr body_;
};

// A threadIdx loop inside a thread block: each thread takes the one iteration of its index.
class ThreadBindCode final : public StmtCode {
 public:
  ThreadBindCode(int slot, Compiler::WrapFn wrap, Bound min, int index_slot, StmtPtr body)
      : slot_(slot),
        wrap_(wrap),
        min_(std::move(min)),
        index_slot_(index_slot),
        body_(std::move(body)) {}
  void Exec(Frame& f) const override {
    const uint64_t min = static_cast<uint64_t>(min_.Get(f));
    f.slots[slot_].i = wrap_(min + static_cast<uint64_t>(f.slots[index_slot_].i));
    body_->Exec(f);
  }

 private:
  int slot_;
  Compiler::WrapFn wrap_;
  Bound min_;
  int index_slot_;
  StmtPtr body_;
};

class IfCode final : public StmtCode {
 public:
  IfCode(ExprPtr condition, StmtPtr then_case, StmtPtr else_case)
      : condition_(std::move(condition)),
        then_case_(std::move(then_case)),
        else_case_(std::move(else_case)) {}
  void Exec(Frame& f) const override {
    const bool c = condition_->Eval(f).i != 0;
    if (f.failed()) return;
    if (c) {
      then_case_->Exec(f);
    } else if (else_case_) {
      else_case_->Exec(f);
    }
  }

 private:
  ExprPtr condition_;
  StmtPtr then_case_, else_case_;
};

class LetStmtCode final : public StmtCode {
 public:
  LetStmtCode(int slot, ExprPtr value, StmtPtr body)
      : slot_(slot), value_(std::move(value)), body_(std::move(body)) {}
  void Exec(Frame& f) const override {
    value_->EvalLanes(f, &f.slots[slot_]);
    if (f.failed()) return;
    body_->Exec(f);
  }

 private:
  int slot_;
  ExprPtr value_;
  StmtPtr body_;
};

}  // namespace

// A failed assertion: "assertion failed: <message> (condition <text>)". Shared with block.cc.
absl::Status AssertionFailure(const std::string& message, const std::string& condition) {
  return absl::FailedPreconditionError(
      absl::StrCat("assertion failed: ", message, " (condition ", condition, ")"));
}

// Whether every lane of a bool value holds.
bool AllLanes(Frame& f, const ExprCode& condition) {
  LaneBuffer c(condition.lanes());
  condition.EvalLanes(f, c.data());
  for (int l = 0; l < condition.lanes(); ++l) {
    if (c[l].i == 0) return false;
  }
  return true;
}

namespace {

class AssertCode final : public StmtCode {
 public:
  AssertCode(ExprPtr condition, std::string condition_text, std::string message, StmtPtr body)
      : condition_(std::move(condition)),
        condition_text_(std::move(condition_text)),
        message_(std::move(message)),
        body_(std::move(body)) {}
  void Exec(Frame& f) const override {
    const bool holds = AllLanes(f, *condition_);
    if (f.failed()) return;
    if (!holds) {
      f.Fail(AssertionFailure(message_, condition_text_));
      return;
    }
    body_->Exec(f);
  }

 private:
  ExprPtr condition_;
  std::string condition_text_;
  std::string message_;
  StmtPtr body_;
};

class EvaluateCode final : public StmtCode {
 public:
  explicit EvaluateCode(ExprPtr value) : value_(std::move(value)) {}
  void Exec(Frame& f) const override {
    LaneBuffer out(value_->lanes());
    value_->EvalLanes(f, out.data());
  }

 private:
  ExprPtr value_;
};

}  // namespace

StmtPtr Nop() { return std::make_unique<NopCode>(); }

StmtPtr Compiler::CompileStmt(const ir::Stmt& s) {
  if (!s.defined()) return Nop();
  WhereScope where(*this, s);
  switch (s.kind()) {
    case ir::NodeKind::kLetStmt: {
      const auto* op = s.as<ir::LetStmtNode>();
      ExprPtr value = CompileExpr(op->value);
      const int slot = DefineVar(op->var.get());
      StmtPtr body = CompileStmt(op->body);
      EndVar(op->var.get());
      return std::make_unique<LetStmtCode>(slot, std::move(value), std::move(body));
    }
    case ir::NodeKind::kAttrStmt:
      return CompileStmt(s.as<ir::AttrStmtNode>()->body);
    case ir::NodeKind::kAssertStmt: {
      const auto* op = s.as<ir::AssertStmtNode>();
      ExprPtr condition = CompileExpr(op->condition);
      StmtPtr body = CompileStmt(op->body);
      return std::make_unique<AssertCode>(std::move(condition), ir::ToString(op->condition),
                                          op->message, std::move(body));
    }
    case ir::NodeKind::kBufferStore:
      return CompileStore(s.as<ir::BufferStoreNode>());
    case ir::NodeKind::kBufferRealize:
      return CompileRealize(s.as<ir::BufferRealizeNode>());
    case ir::NodeKind::kAllocate:
      return CompileAllocate(s.as<ir::AllocateNode>());
    case ir::NodeKind::kFor: {
      const auto* op = s.as<ir::ForNode>();
      std::optional<ThreadTag> tag;
      if (op->for_kind == ir::ForKind::kThreadBinding) {
        tag = ParseThreadTag(op);
        if (!tag) return Nop();
        if (tag->kind == ThreadTag::Kind::kThread && !in_thread_block() && HasBarrier(op)) {
          return CompileThreadBlock(s);
        }
      }
      Bound min = CompileBound(op->min, "a loop's minimum");
      const WrapFn wrap = WrapOf(op->loop_var.dtype());
      if (wrap == nullptr) {
        Fail(absl::StrCat("loop variable '", op->loop_var.name(), "' must be a scalar integer"));
        return Nop();
      }
      if (tag) EnterThreadLoop(op, *tag);
      const int slot = DefineVar(op->loop_var.get());
      StmtPtr code;
      if (tag && tag->kind == ThreadTag::Kind::kThread && in_thread_block()) {
        StmtPtr body = CompileStmt(op->body);
        code = std::make_unique<ThreadBindCode>(slot, wrap, std::move(min),
                                                thread_index_slot(tag->axis), std::move(body));
      } else {
        Bound extent = CompileBound(op->extent, "a loop's extent");
        StmtPtr body = CompileStmt(op->body);
        code = std::make_unique<ForCode>(slot, wrap, std::move(min), std::move(extent),
                                         std::move(body));
      }
      EndVar(op->loop_var.get());
      if (tag) LeaveThreadLoop();
      return code;
    }
    case ir::NodeKind::kIfThenElse: {
      const auto* op = s.as<ir::IfThenElseNode>();
      ExprPtr condition = CompileExpr(op->condition);
      StmtPtr then_case = CompileStmt(op->then_case);
      StmtPtr else_case = op->else_case.defined() ? CompileStmt(op->else_case) : nullptr;
      return std::make_unique<IfCode>(std::move(condition), std::move(then_case),
                                      std::move(else_case));
    }
    case ir::NodeKind::kSeqStmt: {
      std::vector<StmtPtr> seq;
      for (const ir::Stmt& child : s.as<ir::SeqStmtNode>()->seq) seq.push_back(CompileStmt(child));
      return std::make_unique<SeqCode>(std::move(seq));
    }
    case ir::NodeKind::kEvaluate: {
      const auto* op = s.as<ir::EvaluateNode>();
      // A barrier outside a thread block has no threads to wait for.
      if (IsBarrier(op)) {
        CheckBarrier(op);
        return Nop();
      }
      return std::make_unique<EvaluateCode>(CompileExpr(op->value));
    }
    default:
      break;
  }
  Fail(absl::StrCat("a ", ir::NodeKindName(s.kind()), " node is not a statement"));
  return Nop();
}

}  // namespace tessel::interp::detail
