#include "compiler/transforms/unroll.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/transforms/renew_defs.h"

namespace tessel::transforms {
namespace {

class Unroller : public ir::IRMutator {
 public:
  explicit Unroller(int auto_max_extent) : auto_max_extent_(auto_max_extent) {}
  absl::Status status() const { return status_; }

 protected:
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
    } else if (loop->for_kind != ir::ForKind::kSerial || !extent || *extent < 0 ||
               *extent > auto_max_extent_) {
      return visited;
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
