#include "compiler/codegen/gpu/kernel_launch.h"

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>

#include <map>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/ir/visitor.h"

namespace tessel::codegen::gpu {
namespace {

using runtime::LaunchExpr;

// The first line of a statement's printed form, for messages.
std::string FirstLine(const ir::Stmt& s) {
  std::string text = ir::ToString(s);
  const size_t end = text.find('\n');
  if (end != std::string::npos) text.resize(end);
  while (!text.empty() && text.front() == ' ') text.erase(text.begin());
  return text;
}

class LaunchCollector : public ir::IRVisitor {
 public:
  explicit LaunchCollector(const std::string& func) : func_(func) {}

  absl::Status status;
  std::array<ir::Expr, 6> extents;
  std::array<const ir::VarNode*, 6> first_loop{};

 protected:
  void Visit_(const ir::ForNode* op) override {
    if (op->for_kind != ir::ForKind::kThreadBinding) {
      ir::IRVisitor::Visit_(op);
      return;
    }
    const int index = ThreadTagIndex(op->thread_tag);
    if (index < 0) {
      Fail(op->thread_tag == "vthread"
               ? absl::StrCat("loop '", op->loop_var.name(),
                              "' is still bound to vthread (inject_virtual_thread must remove it)")
               : absl::StrCat("loop '", op->loop_var.name(), "' has unknown thread tag '",
                              op->thread_tag, "'"));
      return;
    }
    if (index < 3 && thread_depth_ > 0) {
      Fail(absl::StrCat("loop '", op->loop_var.name(), "' bound to ", op->thread_tag,
                        " is inside a threadIdx loop; blockIdx loops must enclose threadIdx loops"));
      return;
    }
    if (active_[index]) {
      Fail(absl::StrCat("loop '", op->loop_var.name(), "' bound to ", op->thread_tag,
                        " is nested inside another loop bound to it"));
      return;
    }
    if (!extents[index].defined()) {
      extents[index] = op->extent;
      first_loop[index] = op->loop_var.get();
    } else if (!ir::StructuralEqual(extents[index], op->extent)) {
      Fail(absl::StrCat("loops bound to ", op->thread_tag, " have different extents: ",
                        ir::ToString(extents[index]), " (loop '", first_loop[index]->name,
                        "') and ", ir::ToString(op->extent), " (loop '", op->loop_var.name(),
                        "'); one hardware index has one extent"));
      return;
    }
    active_[index] = true;
    thread_depth_ += index >= 3;
    ir::IRVisitor::Visit_(op);
    thread_depth_ -= index >= 3;
    active_[index] = false;
  }

 private:
  void Fail(const std::string& why) {
    if (status.ok()) status = absl::InvalidArgumentError(absl::StrCat("function '", func_, "': ", why));
  }
  const std::string& func_;
  std::array<bool, 6> active_{};
  int thread_depth_ = 0;
};

// The extent as a LaunchExpr over the slots (and the Let variables bound around it).
class LaunchExprBuilder {
 public:
  explicit LaunchExprBuilder(const absl::flat_hash_map<const ir::VarNode*, int>& slots)
      : slots_(slots) {}

  absl::StatusOr<LaunchExpr> Build(const ir::Expr& e) {
    using Op = LaunchExpr::Op;
    const bool logical = e.dtype().is_bool();
    if ((!e.dtype().is_integer() && !logical) || !e.dtype().is_scalar()) {
      return absl::InvalidArgumentError(absl::StrCat("is of type ", e.dtype().ToString()));
    }
    if (const int64_t* c = ir::AsConstInt(e)) return LaunchExpr::Constant(*c);
    if (const auto* v = e.as<ir::VarNode>()) {
      if (auto let = lets_.find(v); let != lets_.end()) return let->second;
      auto it = slots_.find(v);
      if (it == slots_.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("uses '", v->name, "', which is not a parameter of the kernel"));
      }
      return LaunchExpr::Slot(it->second);
    }
    if (const auto* c = e.as<ir::CastNode>(); c != nullptr && c->value.dtype().is_integer()) {
      return Build(c->value);
    }
    if (const auto* l = e.as<ir::LetNode>()) {
      absl::StatusOr<LaunchExpr> value = Build(l->value);
      if (!value.ok()) return value;
      lets_.insert_or_assign(l->var.get(), *value);
      return Build(l->body);
    }
    if (const auto* s = e.as<ir::SelectNode>()) {
      absl::StatusOr<LaunchExpr> c = Build(s->condition), a = Build(s->true_value),
                                 b = Build(s->false_value);
      if (!c.ok()) return c;
      if (!a.ok()) return a;
      if (!b.ok()) return b;
      return LaunchExpr::Select(*c, *a, *b);
    }
    auto binary = [&](Op op, const ir::Expr& a, const ir::Expr& b) -> absl::StatusOr<LaunchExpr> {
      absl::StatusOr<LaunchExpr> la = Build(a);
      if (!la.ok()) return la;
      absl::StatusOr<LaunchExpr> lb = Build(b);
      if (!lb.ok()) return lb;
      return LaunchExpr::Binary(op, *la, *lb);
    };
#define TESSEL_LAUNCH_BINARY(node, op) \
  if (const auto* n = e.as<ir::node>()) return binary(Op::op, n->a, n->b);
    TESSEL_LAUNCH_BINARY(AddNode, kAdd)
    TESSEL_LAUNCH_BINARY(SubNode, kSub)
    TESSEL_LAUNCH_BINARY(MulNode, kMul)
    TESSEL_LAUNCH_BINARY(DivNode, kDiv)
    TESSEL_LAUNCH_BINARY(ModNode, kMod)
    TESSEL_LAUNCH_BINARY(FloorDivNode, kFloorDiv)
    TESSEL_LAUNCH_BINARY(FloorModNode, kFloorMod)
    TESSEL_LAUNCH_BINARY(MinNode, kMin)
    TESSEL_LAUNCH_BINARY(MaxNode, kMax)
    TESSEL_LAUNCH_BINARY(LTNode, kLT)
    TESSEL_LAUNCH_BINARY(LENode, kLE)
    TESSEL_LAUNCH_BINARY(GTNode, kGT)
    TESSEL_LAUNCH_BINARY(GENode, kGE)
    TESSEL_LAUNCH_BINARY(EQNode, kEQ)
    TESSEL_LAUNCH_BINARY(NENode, kNE)
    TESSEL_LAUNCH_BINARY(AndNode, kAnd)
    TESSEL_LAUNCH_BINARY(OrNode, kOr)
#undef TESSEL_LAUNCH_BINARY
    return absl::InvalidArgumentError(
        absl::StrCat("has a ", ir::NodeKindName(e.kind()), " the runtime cannot evaluate"));
  }

 private:
  const absl::flat_hash_map<const ir::VarNode*, int>& slots_;
  absl::flat_hash_map<const ir::VarNode*, LaunchExpr> lets_;
};

}  // namespace

int ThreadTagIndex(const std::string& tag) {
  for (int i = 0; i < 6; ++i) {
    if (tag == kThreadTags[i]) return i;
  }
  return -1;
}

std::optional<int64_t> KernelLaunch::threads_per_block() const {
  int64_t threads = 1;
  for (const std::optional<int64_t>& b : block_const) {
    if (!b) return std::nullopt;
    threads *= *b;
  }
  return threads;
}

absl::StatusOr<KernelLaunch> AnalyzeLaunch(const ir::PrimFunc& func, const KernelSignature& sig) {
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("function '", func->name, "': ", why));
  };
  // Down the wrappers to the one thread-bound region.
  ir::Stmt s = func->body;
  while (true) {
    if (const auto* a = s.as<ir::AttrStmtNode>()) {
      s = a->body;
    } else if (const auto* l = s.as<ir::LetStmtNode>()) {
      s = l->body;
    } else if (const auto* a = s.as<ir::AllocateNode>()) {
      s = a->body;
    } else if (const auto* seq = s.as<ir::SeqStmtNode>()) {
      int bound = 0;
      for (const ir::Stmt& part : seq->seq) {
        const auto* loop = part.as<ir::ForNode>();
        if (loop == nullptr || loop->for_kind != ir::ForKind::kThreadBinding) {
          return fail(absl::StrCat("the statement `", FirstLine(part),
                                   "` runs outside every thread-bound loop; bind its outer loops "
                                   "to blockIdx/threadIdx"));
        }
        ++bound;
      }
      return fail(absl::StrCat("has ", bound,
                               " separate thread-bound loop nests; a function is one kernel: "
                               "fuse them under one blockIdx loop or lower them as separate "
                               "functions"));
    } else {
      break;
    }
  }
  const auto* top = s.as<ir::ForNode>();
  if (top == nullptr || top->for_kind != ir::ForKind::kThreadBinding) {
    return fail(absl::StrCat("the statement `", FirstLine(s),
                             "` runs outside every thread-bound loop; bind its outer loops to "
                             "blockIdx/threadIdx"));
  }

  LaunchCollector collector(func->name);
  collector.VisitStmt(func->body);
  if (!collector.status.ok()) return collector.status;

  absl::flat_hash_map<const ir::VarNode*, int> slots;
  for (size_t i = 0; i < sig.slot_vars.size(); ++i) slots.emplace(sig.slot_vars[i].get(), i);
  KernelLaunch launch;
  for (int i = 0; i < 6; ++i) {
    const ir::Expr& extent = collector.extents[i];
    ir::Expr& ir_extent = i < 3 ? launch.grid[i] : launch.block[i - 3];
    std::optional<int64_t>& constant = i < 3 ? launch.grid_const[i] : launch.block_const[i - 3];
    LaunchExpr& dim = i < 3 ? launch.dims.grid[i] : launch.dims.block[i - 3];
    if (!extent.defined()) {
      constant = 1;
      continue;
    }
    absl::StatusOr<LaunchExpr> e = LaunchExprBuilder(slots).Build(extent);
    if (!e.ok()) {
      return fail(absl::StrCat("the extent ", ir::ToString(extent), " of ", kThreadTags[i],
                               " (loop '", collector.first_loop[i]->name, "') ",
                               e.status().message()));
    }
    ir_extent = extent;
    dim = *e;
    if (const int64_t* c = ir::AsConstInt(extent)) {
      if (*c <= 0) {
        return fail(absl::StrCat(kThreadTags[i], " has extent ", *c, " (loop '",
                                 collector.first_loop[i]->name, "')"));
      }
      constant = *c;
    }
  }
  return launch;
}

}  // namespace tessel::codegen::gpu
