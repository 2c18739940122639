#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/ir/expr.h"
#include "hardware/vdla/isa.h"

// An element-wise expression as the steps VDLA's ALU runs in place on its destination entries:
// the destination first gets one operand (a move), then each step applies one operation with an
// immediate or with another accumulator operand: dst = op(dst, imm | src). E.g.
//   max(min(shift_right(acc + bias, 8), 127), -127)
// is move acc; add bias; shr 8; min 127; max -127.
namespace tessel::codegen::vdla {

struct AluStep {
  bool move = false;  // dst = src (the chain's first step)
  hardware::vdla::AluOp op = hardware::vdla::AluOp::kAdd;
  bool use_imm = false;
  int32_t imm = 0;
  const ir::BufferLoadNode* src = nullptr;  // for a move, or an operation without immediate
};

// The steps of `value`: a chain of add, sub (of an immediate), mul, min, max and shift_right (by
// an immediate) whose every operation has one side that is an immediate or a load, starting from
// a load; int32 throughout. InvalidArgument naming what the ALU cannot compute: another
// operation, a chain that does not start at a load, an immediate past 16 bits, another type.
absl::StatusOr<std::vector<AluStep>> AluChain(const ir::Expr& value);

}  // namespace tessel::codegen::vdla
