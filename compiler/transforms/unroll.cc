#include "compiler/transforms/unroll.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/transforms/renew_defs.h"

namespace tessel::transforms {
namespace {

constexpr char kAutoUnrollMaxStep[] = "pragma_auto_unroll_max_step";
constexpr char kUnrollExplicit[] = "pragma_unroll_explicit";
constexpr int64_t kMany = std::numeric_limits<int64_t>::max() / 4;

int64_t Times(int64_t a, int64_t b) { return a != 0 && b > kMany / a ? kMany : a * b; }

// How many statements running `s` executes once its loops are unrolled, saturating at kMany;
// a loop without a constant extent, or bound to threads, counts kMany.
int64_t Steps(const ir::Stmt& s) {
  if (!s.defined()) return 0;
  if (const auto* loop = s.as<ir::ForNode>()) {
    const int64_t* extent = ir::AsConstInt(loop->extent);
    if (!extent || loop->for_kind == ir::ForKind::kThreadBinding) return kMany;
    return Times(std::max<int64_t>(*extent, 0), Steps(loop->body));
  }
  if (const auto* seq = s.as<ir::SeqStmtNode>()) {
    int64_t total = 0;
    for (const ir::Stmt& part : seq->seq) total = std::min(kMany, total + Steps(part));
    return total;
  }
  if (const auto* branch = s.as<ir::IfThenElseNode>()) {
    return std::min(kMany, Steps(branch->then_case) + Steps(branch->else_case));
  }
  if (const auto* let = s.as<ir::LetStmtNode>()) return Steps(let->body);
  if (const auto* attr = s.as<ir::AttrStmtNode>()) return Steps(attr->body);
  if (const auto* alloc = s.as<ir::AllocateNode>()) return Steps(alloc->body);
  return 1;
}

class Unroller : public ir::IRMutator {
 public:
  explicit Unroller(int auto_max_extent) : auto_max_extent_(auto_max_extent) {}
  absl::Status status() const { return status_; }

 protected:
  // The two unrolling pragmas apply to the loops inside them and are consumed here.
  ir::Stmt Mutate_(const ir::AttrStmtNode* op, const ir::Stmt& self) override {
    const bool max_step = op->key == kAutoUnrollMaxStep;
    if (!max_step && op->key != kUnrollExplicit) return ir::IRMutator::Mutate_(op, self);
    const int64_t* value = ir::AsConstInt(op->value);
    if (!value) {
      status_ = absl::InvalidArgumentError(absl::StrCat(
          "pragma ", op->key.substr(7), " needs a constant, got ", ir::ToString(op->value)));
      return self;
    }
    const std::optional<int64_t> saved_step = max_step_;
    const bool saved_explicit = explicit_;
    if (max_step) {
      max_step_ = *value;
    } else {
      explicit_ = *value != 0;
    }
    ir::Stmt body = MutateStmt(op->body);
    max_step_ = saved_step;
    explicit_ = saved_explicit;
    return body;
  }

  ir::Stmt Mutate_(const ir::ForNode* op, const ir::Stmt& self) override {
    if (!status_.ok()) return self;
    ir::Stmt visited = ir::IRMutator::Mutate_(op, self);
    if (!status_.ok()) return self;
    const auto* loop = visited.as<ir::ForNode>();
    const int64_t* extent = ir::AsConstInt(loop->extent);
    if (loop->for_kind == ir::ForKind::kUnrolled) {
      if (!extent || *extent < 0) {
        status_ = absl::InvalidArgumentError(
            absl::StrCat("unrolled loop '", loop->loop_var.name(), "' has extent ",
                         ir::ToString(loop->extent), "; unrolling needs a constant extent"));
        return self;
      }
    } else if (loop->for_kind != ir::ForKind::kSerial || !extent || *extent < 0) {
      return visited;
    } else if (*extent > auto_max_extent_) {
      if (!max_step_ || Steps(visited) > *max_step_) return visited;
      if (!explicit_) {
        // Marked, not expanded: the C printers ask their compiler to unroll it.
        return ir::For(loop->loop_var, loop->min, loop->extent, ir::ForKind::kUnrolled,
                       loop->body);
      }
    }
    if (*extent == 0) return ir::Evaluate(0);
    std::vector<ir::Stmt> copies;
    for (int64_t k = 0; k < *extent; ++k) {
      ir::Expr value = loop->min + ir::IntImm(loop->min.dtype(), k);
      copies.push_back(RenewDefs(loop->body, {{loop->loop_var.get(), value}}));
    }
    return ir::SeqStmt(std::move(copies));
  }

 private:
  int auto_max_extent_;
  std::optional<int64_t> max_step_;  // inside an auto_unroll_max_step pragma
  bool explicit_ = true;             // unroll_explicit's value (expanded unless 0)
  absl::Status status_;
};

}  // namespace

absl::StatusOr<ir::Stmt> Unroll(ir::Stmt stmt, int auto_max_extent) {
  Unroller pass(auto_max_extent);
  ir::Stmt result = pass.MutateStmt(stmt);
  if (!pass.status().ok()) return pass.status();
  return result;
}

}  // namespace tessel::transforms
