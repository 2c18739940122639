// Loop partitioning: a non-dividing split's guard leaves the bulk of the loop.
#include "compiler/transforms/loop_partition.h"

#include <gtest/gtest.h>

#include "compiler/arith/stmt_simplify.h"
#include "compiler/codegen/interp/interp.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/well_formed.h"
#include "compiler/testing/host_tensor.h"

namespace tessel::transforms {
namespace {

using ir::Expr;
using ir::Var;

// for (io, 0, 3) for (ii, 0, 4) if (likely(io * 4 + ii < 10)) B[io * 4 + ii] = A[...] * 2
ir::PrimFunc GuardedScale() {
  ir::Buffer A = ir::Buffer::Declare("A", {10}, ir::kFloat32);
  ir::Buffer B = ir::Buffer::Declare("B", {10}, ir::kFloat32);
  Var io("io"), ii("ii");
  Expr index = io * 4 + ii;
  ir::Stmt body = ir::For(
      io, 0, 3, ir::ForKind::kSerial,
      ir::For(ii, 0, 4, ir::ForKind::kSerial,
              ir::IfThenElse(ir::likely(index < 10),
                             ir::BufferStore(B, ir::BufferLoad(A, {index}) * 2.0f, {index}))));
  return ir::PrimFunc("scale", {A->data, B->data}, {A, B}, body);
}

TEST(LoopPartitionTest, SplitsOffTheGuardedTail) {
  ir::PrimFunc f = GuardedScale();
  ir::PrimFunc out = f.WithBody(arith::Simplify(LoopPartition(f->body)));
  // The bulk runs unguarded; the tail's inner loop is partitioned in turn, to its 2 valid lanes.
  EXPECT_EQ(ir::ToString(out),
            "func scale(A: float32[10], B: float32[10]) {\n"
            "  for (io, 0, 2) {\n"
            "    for (ii, 0, 4) {\n"
            "      B[(ii + (io * 4))] = (A[(ii + (io * 4))] * 2.0f)\n"
            "    }\n"
            "  }\n"
            "  for (ii_1, 0, 2) {\n"
            "    B[(ii_1 + 8)] = (A[(ii_1 + 8)] * 2.0f)\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(ir::VerifyWellFormed(out).ok()) << ir::VerifyWellFormed(out);

  std::mt19937 rng(3);
  testing::HostTensor a({10}), b_before({10}), b_after({10});
  a.FillRandom(rng);
  ASSERT_TRUE(interp::Run(f, {a.dl(), b_before.dl()}).ok());
  ASSERT_TRUE(interp::Run(out, {a.dl(), b_after.dl()}).ok());
  EXPECT_EQ(testing::Compare(b_after, b_before, 0, 0), "");
}

TEST(LoopPartitionTest, LeavesLoopsWithoutUsableGuardsAlone) {
  ir::Buffer A = ir::Buffer::Declare("A", {8}, ir::kFloat32);
  Var i("i"), n("n");
  ir::Stmt loop = ir::For(i, 0, 8, ir::ForKind::kSerial,
                          ir::IfThenElse(ir::likely(i * i < n), ir::BufferStore(A, 1.0f, {i})));
  EXPECT_TRUE(LoopPartition(loop).same_as(loop));
}

}  // namespace
}  // namespace tessel::transforms
