// The ALU's steps for element-wise expressions: the quantized tail, operands on either side,
// subtraction of an immediate; and what the ALU cannot compute, refused by name.
#include "compiler/codegen/vdla/alu_chain.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"

namespace tessel::codegen::vdla {
namespace {

using hardware::vdla::AluOp;

struct Operands {
  ir::Buffer acc = ir::Buffer::Declare("acc", {16}, ir::kInt32, "vdla.acc");
  ir::Buffer bias = ir::Buffer::Declare("bias", {16}, ir::kInt32, "vdla.acc");
  ir::Var i{"i"};
  ir::Expr Acc() const { return ir::BufferLoad(acc, {i}); }
  ir::Expr Bias() const { return ir::BufferLoad(bias, {i}); }
};

std::string Describe(const std::vector<AluStep>& steps) {
  std::string out;
  for (const AluStep& s : steps) {
    if (!out.empty()) out += "; ";
    if (s.move) {
      out += "move " + s.src->buffer->name;
      continue;
    }
    const char* names[] = {"min", "max", "add", "shr", "mul"};
    out += names[static_cast<int>(s.op)];
    out += " " + (s.use_imm ? std::to_string(s.imm) : s.src->buffer->name);
  }
  return out;
}

TEST(AluChainTest, TheQuantizedTail) {
  Operands x;
  ir::Expr e = ir::max(ir::min(ir::shift_right(x.Acc() + x.Bias(), 8), 127), -127);
  absl::StatusOr<std::vector<AluStep>> steps = AluChain(e);
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(Describe(*steps), "move acc; add bias; shr 8; min 127; max -127");
}

TEST(AluChainTest, OperandsOnEitherSideAndSubtraction) {
  Operands x;
  absl::StatusOr<std::vector<AluStep>> steps =
      AluChain(x.Bias() + ir::IntImm(ir::kInt32, 3) * (x.Acc() - 5));
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(Describe(*steps), "move acc; add -5; mul 3; add bias");
}

TEST(AluChainTest, WhatTheAluCannotComputeIsRefused) {
  Operands x;
  struct Case {
    ir::Expr e;
    std::string message;
  };
  const std::vector<Case> cases = {
      {x.Acc() / 2, "the ALU has min, max, add, shift right and multiply"},
      {(x.Acc() + 1) * (x.Bias() + 1), "one side of each operation must be"},
      {x.Acc() - x.Bias(), "it subtracts only immediates"},
      {x.Acc() + 40000, "the immediate 40000 does not fit 16 bits"},
      {ir::shift_right(x.Acc(), x.Bias()), "it shifts by immediates only"},
      {ir::cast(ir::kFloat32, x.Acc()), "the ALU computes int32"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<AluStep>> steps = AluChain(c.e);
    ASSERT_FALSE(steps.ok()) << c.message;
    EXPECT_EQ(steps.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(steps.status().message().find(c.message), std::string::npos) << steps.status();
  }
}

}  // namespace
}  // namespace tessel::codegen::vdla
