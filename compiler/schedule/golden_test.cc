// The printed IR of a lowered tiled matmul, against the expected text: a change to lowering that
// changes the code shows up here as a diff to review.
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/schedule/bound.h"
#include "compiler/schedule/schedule_ops.h"
#include "compiler/testing/workloads.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::schedule {
namespace {

TEST(GoldenTest, TiledVectorizedParallelMatmul) {
  testing::Matmul w = testing::MakeMatmul(64, 64, 64);
  Schedule s = create_schedule({w.C.op()});
  const auto& axis = w.C.op().as<te::ComputeOpNode>()->axis;
  auto t = s[w.C].tile(axis[0], axis[1], 8, 8);
  ASSERT_TRUE(t.ok());
  auto k = s[w.C].split(w.k, 4);
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(
      s[w.C].reorder({t->x_outer, t->y_outer, k->outer, t->x_inner, k->inner, t->y_inner}).ok());
  ASSERT_TRUE(s[w.C].vectorize(t->y_inner).ok());
  ASSERT_TRUE(s[w.C].parallel(t->x_outer).ok());
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, w.args, "matmul");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(ir::ToString(*f),
            R"(func matmul(A: float32[64, 64], B: float32[64, 64], C: float32[64, 64]) {
  for (i.outer, 0, 8) parallel {
    for (j.outer, 0, 8) {
      for (i.inner.init, 0, 8) {
        C[ramp((((i.inner.init * 64) + (i.outer * 512)) + (j.outer * 8)), 1, 8)] = broadcast(0.0f, 8)
      }
      for (k.outer, 0, 16) {
        for (i.inner, 0, 8) {
          for (k.inner, 0, 4) {
            C[ramp((((i.inner * 64) + (i.outer * 512)) + (j.outer * 8)), 1, 8)] = (C[ramp((((i.inner * 64) + (i.outer * 512)) + (j.outer * 8)), 1, 8)] + (broadcast(A[((((i.inner * 64) + (i.outer * 512)) + k.inner) + (k.outer * 4))], 8) * B[ramp((((j.outer * 8) + (k.inner * 64)) + (k.outer * 256)), 1, 8)]))
          }
        }
      }
    }
  }
}
)");
}

// The loop nest straight from the schedule (before any pass): a split that divides its axis needs
// no guard; one that does not gets exactly one.
std::string NestAfterSplit(int extent, int factor) {
  Tensor A = te::placeholder({extent}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {extent}, [&](ir::Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = create_schedule({B.op()});
  EXPECT_TRUE(s[B].split(B.op().as<te::ComputeOpNode>()->axis[0], factor).ok());
  absl::StatusOr<BoundMap> bounds = InferBound(s);
  EXPECT_TRUE(bounds.ok());
  TensorBuffers args{{A, ir::Buffer::Declare("A", {extent}, ir::kFloat32)},
                     {B, ir::Buffer::Declare("B", {extent}, ir::kFloat32)}};
  absl::StatusOr<ir::Stmt> nest = ScheduleOps(s, *bounds, args);
  EXPECT_TRUE(nest.ok());
  return ir::ToString(*nest);
}

TEST(GoldenTest, GuardOnlyWhereTheBoundsDoNotProveIt) {
  EXPECT_EQ(NestAfterSplit(64, 8),
            "for (i.outer, 0, 8) {\n"
            "  for (i.inner, 0, 8) {\n"
            "    B[(i.inner + (i.outer * 8))] = (A[(i.inner + (i.outer * 8))] + 1.0f)\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(NestAfterSplit(61, 8),
            "for (i.outer, 0, 8) {\n"
            "  for (i.inner, 0, 8) {\n"
            "    if (likely(((i.inner + (i.outer * 8)) < 61))) {\n"
            "      B[(i.inner + (i.outer * 8))] = (A[(i.inner + (i.outer * 8))] + 1.0f)\n"
            "    }\n"
            "  }\n"
            "}\n");
}

}  // namespace
}  // namespace tessel::schedule
