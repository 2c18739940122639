// The Compiler's scopes, errors and thread-binding rules (compiler.h).
#include "compiler/codegen/interp/compiler.h"

#include <absl/strings/str_cat.h>

#include "compiler/codegen/interp/lanewise.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/check.h"

namespace tessel::interp::detail {
namespace {

// Marks every statement that holds a barrier (itself included).
class BarrierFinder : public ir::IRVisitor {
 public:
  explicit BarrierFinder(absl::flat_hash_set<const ir::StmtNode*>* marked) : marked_(marked) {}

  void VisitStmt(const ir::Stmt& s) override {
    stack_.push_back(s.get());
    ir::IRVisitor::VisitStmt(s);
    stack_.pop_back();
  }

 protected:
  void Visit_(const ir::EvaluateNode* op) override {
    if (IsBarrier(op)) marked_->insert(stack_.begin(), stack_.end());
    ir::IRVisitor::Visit_(op);
  }

 private:
  absl::flat_hash_set<const ir::StmtNode*>* marked_;
  std::vector<const ir::StmtNode*> stack_;
};

class VectorDiscarded final : public VectorCode {
 public:
  explicit VectorDiscarded(int lanes) : VectorCode(lanes) {}
  void EvalLanes(Frame&, Lane* out) const override {
    for (int l = 0; l < lanes(); ++l) out[l] = IntLane(0);
  }
};

class ScalarDiscarded final : public ScalarCode {
 public:
  Lane Eval(Frame&) const override { return IntLane(0); }
};

const char* TagKindName(ThreadTag::Kind kind) {
  switch (kind) {
    case ThreadTag::Kind::kBlock:
      return "blockIdx";
    case ThreadTag::Kind::kThread:
      return "threadIdx";
    case ThreadTag::Kind::kVirtual:
      break;
  }
  return "vthread";
}

}  // namespace

Lane VectorCode::Eval(Frame&) const {
  TESSEL_UNREACHABLE() << "a vector of " << lanes() << " lanes evaluated as a scalar";
}

bool IsBarrier(const ir::EvaluateNode* op) {
  const auto* call = op->value.as<ir::CallNode>();
  return call != nullptr && call->op == ir::Intrinsic::kStorageSync;
}

std::string FirstLine(const ir::Stmt& s) {
  std::string text = ir::ToString(s);
  const size_t end = text.find('\n');
  if (end != std::string::npos) text.resize(end);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

Compiler::Compiler(const ir::Stmt& body, const ExternRegistry& externs) : externs_(externs) {
  BarrierFinder finder(&has_barrier_);
  if (body.defined()) finder.VisitStmt(body);
}

int Compiler::DefineVar(const ir::VarNode* var) {
  const int slot = next_slot_;
  next_slot_ += var->dtype.lanes();
  vars_[var].push_back(slot);
  return slot;
}

void Compiler::EndVar(const ir::VarNode* var) {
  auto it = vars_.find(var);
  TESSEL_CHECK(it != vars_.end() && !it->second.empty()) << "EndVar of " << var->name;
  it->second.pop_back();
  if (it->second.empty()) vars_.erase(it);
}

int Compiler::SlotOf(const ir::VarNode* var) const {
  auto it = vars_.find(var);
  return it == vars_.end() ? -1 : it->second.back();
}

int Compiler::DefineStorage(const ir::Var& data, StorageInfo::Origin origin,
                            const ir::Buffer& buffer) {
  const int binding = next_binding_++;
  storage_[data.get()].push_back(StorageInfo{binding, origin, buffer});
  return binding;
}

void Compiler::EndStorage(const ir::Var& data) {
  auto it = storage_.find(data.get());
  TESSEL_CHECK(it != storage_.end() && !it->second.empty()) << "EndStorage of " << data.name();
  it->second.pop_back();
  if (it->second.empty()) storage_.erase(it);
}

const StorageInfo* Compiler::StorageOf(const ir::VarNode* data) const {
  auto it = storage_.find(data);
  return it == storage_.end() ? nullptr : &it->second.back();
}

void Compiler::Fail(const std::string& message) {
  if (!status_.ok()) return;
  std::string text = message;
  if (where_ != nullptr) absl::StrAppend(&text, ", in `", FirstLine(*where_), "`");
  status_ = absl::InvalidArgumentError(text);
}

ExprPtr Compiler::Discarded(int lanes) {
  if (lanes == 1) return std::make_unique<ScalarDiscarded>();
  return std::make_unique<VectorDiscarded>(lanes);
}

std::optional<ThreadTag> Compiler::ParseThreadTag(const ir::ForNode* loop) {
  const std::string& tag = loop->thread_tag;
  auto axis_of = [&](size_t prefix) -> int {
    if (tag.size() != prefix + 1) return -1;
    const char c = tag[prefix];
    return c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : -1;
  };
  if (tag.rfind("blockIdx.", 0) == 0 && axis_of(9) >= 0) {
    return ThreadTag{ThreadTag::Kind::kBlock, axis_of(9)};
  }
  if (tag.rfind("threadIdx.", 0) == 0 && axis_of(10) >= 0) {
    return ThreadTag{ThreadTag::Kind::kThread, axis_of(10)};
  }
  if (tag.rfind("vthread", 0) == 0 || tag.rfind("cthread", 0) == 0) {
    return ThreadTag{ThreadTag::Kind::kVirtual, 0};
  }
  Fail(absl::StrCat("loop '", loop->loop_var.name(), "' has unknown thread tag '", tag,
                    "' (expected blockIdx.x/y/z, threadIdx.x/y/z or vthread)"));
  return std::nullopt;
}

void Compiler::EnterThreadLoop(const ir::ForNode* loop, const ThreadTag& tag) {
  for (const auto& [outer, outer_tag] : thread_loops_) {
    const bool same_index = tag.kind != ThreadTag::Kind::kVirtual && tag.kind == outer_tag.kind &&
                            tag.axis == outer_tag.axis;
    const bool block_in_thread =
        tag.kind == ThreadTag::Kind::kBlock && outer_tag.kind == ThreadTag::Kind::kThread;
    if (same_index || block_in_thread) {
      Fail(absl::StrCat("loop '", loop->loop_var.name(), "' bound to ", loop->thread_tag,
                        " is nested inside loop '", outer->loop_var.name(), "' bound to ",
                        outer->thread_tag, " (", TagKindName(tag.kind),
                        same_index ? " loops of one index cannot nest)"
                                   : " loops must enclose threadIdx loops)"));
      break;
    }
  }
  thread_loops_.emplace_back(loop, tag);
}

void Compiler::CheckBarrier(const ir::EvaluateNode* op) {
  const auto* call = op->value.as<ir::CallNode>();
  const auto* scope = call->args.empty() ? nullptr : call->args[0].as<ir::StringImmNode>();
  if (scope == nullptr || (scope->value != "shared" && scope->value != "warp")) {
    Fail(absl::StrCat("storage_sync needs the scope \"shared\" (or \"warp\"), got ",
                      ir::ToString(op->value), "; grid-wide barriers are not supported"));
  }
}

Compiler::WrapFn Compiler::WrapOf(ir::DataType type) {
  const std::optional<ScalarKind> kind = KindOf(type);
  if (!kind || type.is_vector() || type.is_bool()) return nullptr;
  return VisitKind(*kind, [](auto type) -> WrapFn {
    using T = decltype(type);
    if constexpr (T::kFloat) {
      return nullptr;
    } else {
      return &T::Wrap;
    }
  });
}

ExprPtr RejectType(Compiler& c, const char* name, ScalarKind kind, const ir::Expr& self,
                   int lanes) {
  c.Fail(
      absl::StrCat(name, " does not apply to ", KindName(kind), " operands: ", ir::ToString(self)));
  return c.Discarded(lanes);
}

}  // namespace tessel::interp::detail
