#include "compiler/codegen/vdla/alu_chain.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/status_macros.h"

namespace tessel::codegen::vdla {
namespace {

using hardware::vdla::AluOp;

constexpr int64_t kImmMax = (int64_t{1} << (hardware::vdla::kImmBits - 1)) - 1;

absl::Status Refuse(const ir::Expr& e, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("the ALU cannot compute ", ir::ToString(e), ": ", why));
}

bool IsLeaf(const ir::Expr& e) {
  return e.as<ir::IntImmNode>() != nullptr || e.as<ir::BufferLoadNode>() != nullptr;
}

class Chain {
 public:
  absl::Status Add(const ir::Expr& e) {
    if (e.dtype() != ir::kInt32) return Refuse(e, "the ALU computes int32");
    if (const auto* load = e.as<ir::BufferLoadNode>()) {
      if (!steps_.empty()) return Refuse(e, "internal: a move after the first step");
      steps_.push_back({.move = true, .src = load});
      return absl::OkStatus();
    }
    if (e.as<ir::IntImmNode>() != nullptr) return Refuse(e, "it starts from no operand");
    if (const auto* n = e.as<ir::AddNode>()) return Binary(e, AluOp::kAdd, n->a, n->b, true);
    if (const auto* n = e.as<ir::MulNode>()) return Binary(e, AluOp::kMul, n->a, n->b, true);
    if (const auto* n = e.as<ir::MinNode>()) return Binary(e, AluOp::kMin, n->a, n->b, true);
    if (const auto* n = e.as<ir::MaxNode>()) return Binary(e, AluOp::kMax, n->a, n->b, true);
    if (const auto* n = e.as<ir::SubNode>()) {
      const auto* imm = n->b.as<ir::IntImmNode>();
      if (imm == nullptr) return Refuse(e, "it subtracts only immediates");
      TESSEL_RETURN_IF_ERROR(Add(n->a));
      return Step(e, AluOp::kAdd, ir::IntImm(ir::kInt32, -imm->value));
    }
    if (const auto* call = e.as<ir::CallNode>();
        call != nullptr && call->op == ir::Intrinsic::kShiftRight) {
      if (call->args[1].as<ir::IntImmNode>() == nullptr) {
        return Refuse(e, "it shifts by immediates only");
      }
      TESSEL_RETURN_IF_ERROR(Add(call->args[0]));
      return Step(e, AluOp::kShr, call->args[1]);
    }
    return Refuse(e, "the ALU has min, max, add, shift right and multiply");
  }

  std::vector<AluStep> steps() && { return std::move(steps_); }

 private:
  absl::Status Binary(const ir::Expr& e, AluOp op, const ir::Expr& a, const ir::Expr& b,
                      bool commutative) {
    if (IsLeaf(b) && !(IsLeaf(a) && a.as<ir::IntImmNode>() != nullptr)) {
      TESSEL_RETURN_IF_ERROR(Add(a));
      return Step(e, op, b);
    }
    if (commutative && IsLeaf(a)) {
      TESSEL_RETURN_IF_ERROR(Add(b));
      return Step(e, op, a);
    }
    return Refuse(e, "one side of each operation must be an immediate or a load");
  }

  absl::Status Step(const ir::Expr& e, AluOp op, const ir::Expr& operand) {
    AluStep s{.op = op};
    if (const auto* imm = operand.as<ir::IntImmNode>()) {
      if (imm->value > kImmMax || imm->value < -kImmMax - 1) {
        return Refuse(e, absl::StrCat("the immediate ", imm->value, " does not fit 16 bits"));
      }
      s.use_imm = true;
      s.imm = static_cast<int32_t>(imm->value);
    } else {
      s.src = operand.as<ir::BufferLoadNode>();
    }
    steps_.push_back(s);
    return absl::OkStatus();
  }

  std::vector<AluStep> steps_;
};

}  // namespace

absl::StatusOr<std::vector<AluStep>> AluChain(const ir::Expr& value) {
  Chain chain;
  if (absl::Status s = chain.Add(value); !s.ok()) return s;
  return std::move(chain).steps();
}

}  // namespace tessel::codegen::vdla
