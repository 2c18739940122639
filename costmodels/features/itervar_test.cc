// Itervar features of small hand-written programs, checked against values worked out by hand from
// the loop nest: extents, trip counts, annotations, operation counts, and per buffer the stride
// of each loop variable, the distinct elements touched, reuse, and the same with the parallel loop
// moved innermost.
#include "costmodels/features/itervar.h"

#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ir/printer.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/transforms/pipeline.h"
#include "costmodels/features/program_features.h"

namespace tessel::costmodels {
namespace {

float L(double x) { return static_cast<float>(std::log2(1 + x)); }

struct Program {
  ProgramFeatures features;
  std::vector<std::string> loops;  // loop variable names, program order
  std::string ir;
};

Program Extract(const schedule::Schedule& s, const std::vector<te::Tensor>& args) {
  absl::StatusOr<ir::PrimFunc> f = transforms::LowerToLoopNest(s, args, "test");
  EXPECT_TRUE(f.ok()) << f.status();
  Program p;
  p.features = ExtractProgramFeatures(*f);
  p.ir = ir::ToString(*f);
  const LoopNest nest = AnalyzeLoopNest(*f);
  for (const Loop& loop : nest.loops) p.loops.push_back(loop.name);
  return p;
}

// C[i, j] = sum_k A[i, k] * B[k, j], M x N x K = 16 x 32 x 8: i parallel, j split by `factor`,
// loops i, j.outer, k, j.inner with j.inner vectorized.
Program Matmul(int factor) {
  te::Tensor a = te::placeholder({16, 8}, ir::kFloat32, "A");
  te::Tensor b = te::placeholder({8, 32}, ir::kFloat32, "B");
  ir::IterVar k = te::reduce_axis({0, 8}, "k");
  te::Tensor c =
      te::compute({16, 32}, [&](ir::Var i, ir::Var j) { return te::sum(a(i, k) * b(k, j), {k}); },
                  "C", {"i", "j"});
  schedule::Schedule s = schedule::create_schedule({c.op()});
  schedule::Stage stage = s[c];
  const auto* op = c.op().as<te::ComputeOpNode>();
  absl::StatusOr<schedule::Stage::SplitResult> j = stage.split(op->axis[1], factor);
  EXPECT_TRUE(j.ok());
  EXPECT_TRUE(stage.reorder({op->axis[0], j->outer, k, j->inner}).ok());
  EXPECT_TRUE(stage.vectorize(j->inner).ok());
  EXPECT_TRUE(stage.parallel(op->axis[0]).ok());
  return Extract(s, {a, b, c});
}

float At(const Program& p, int loop, int column) { return p.features.itervar.at(loop).at(column); }
float Buf(const Program& p, int loop, int slot, int column) {
  return At(p, loop, BufferColumnOf(slot, column));
}

TEST(ItervarTest, MatmulLoopsByHand) {
  const Program p = Matmul(8);
  // The reduction's init runs in its own copy of j.inner, ahead of k.
  ASSERT_EQ(p.loops, (std::vector<std::string>{"i", "j.outer", "j.inner.init", "k", "j.inner"}))
      << p.ir;
  EXPECT_EQ(p.features.parents, (std::vector<int>{-1, 0, 1, 1, 3}));
  for (const std::vector<float>& row : p.features.itervar) ASSERT_EQ(row.size(), kNodeWidth);

  const int i = 0, jo = 1, init = 2, k = 3, ji = 4;
  const double extents[] = {16, 4, 8, 8, 8};
  const double trips[] = {16, 64, 512, 512, 4096};
  for (int l = 0; l < 5; ++l) {
    EXPECT_FLOAT_EQ(At(p, l, kExtent), L(extents[l])) << l;
    EXPECT_FLOAT_EQ(At(p, l, kTripCount), L(trips[l])) << l;
  }
  EXPECT_FLOAT_EQ(At(p, i, kDepth), 0);
  EXPECT_FLOAT_EQ(At(p, ji, kDepth), L(3));
  // Annotations: one-hot.
  EXPECT_EQ(At(p, i, kKindParallel), 1);
  EXPECT_EQ(At(p, jo, kKindSerial), 1);
  EXPECT_EQ(At(p, init, kKindVectorized), 1);
  EXPECT_EQ(At(p, k, kKindSerial), 1);
  EXPECT_EQ(At(p, ji, kKindVectorized), 1);
  for (int l = 0; l < 5; ++l) {
    float hot = 0;
    for (int c = kKindSerial; c <= kKindOtherThread; ++c) hot += At(p, l, c);
    EXPECT_EQ(hot, 1) << l;
  }
  // One add and one mul per innermost iteration: 8 per k iteration, 64 per j.outer iteration.
  EXPECT_FLOAT_EQ(At(p, ji, kOpsAdd), L(1));
  EXPECT_FLOAT_EQ(At(p, k, kOpsMul), L(8));
  EXPECT_FLOAT_EQ(At(p, jo, kOpsAdd), L(64));
  EXPECT_FLOAT_EQ(At(p, i, kOpsMul), L(256));
  EXPECT_FLOAT_EQ(At(p, init, kOpsAdd), 0);
  EXPECT_FLOAT_EQ(At(p, ji, kOpsDiv), 0);

  // Under k (one full run of k, j.inner inside it): C is read and written 64 times each, A and B
  // read 64 times; C first, then A and B by name.
  //   C[i*32 + jo*8 + ji]: stride 0 in k, 8 elements, reuse 128 / 8.
  //   A[i*8 + k]:          stride 1, 8 elements, reuse 8.
  //   B[k*32 + jo*8 + ji]: stride 32, 64 elements, reuse 1.
  // With i moved innermost (16 threads): C 128 elements (reuse 2048 / 128), A 128 (8*i + k covers
  // 0..127; reuse 1024 / 128), B still 64 (reuse 1024 / 64).
  const float c0[] = {0, L(8), L(16), L(128), L(16), 1};
  const float a1[] = {L(1), L(8), L(8), L(128), L(8), 0};
  const float b2[] = {L(32), L(64), L(1), L(64), L(16), 0};
  for (int col = 0; col < kBufferWidth; ++col) {
    EXPECT_FLOAT_EQ(Buf(p, k, 0, col), c0[col]) << "C column " << col;
    EXPECT_FLOAT_EQ(Buf(p, k, 1, col), a1[col]) << "A column " << col;
    EXPECT_FLOAT_EQ(Buf(p, k, 2, col), b2[col]) << "B column " << col;
  }
  for (int col = 0; col < kBufferWidth; ++col) EXPECT_EQ(Buf(p, k, 3, col), 0) << col;

  // Strides of every loop variable (slot order C, A, B wherever all three are touched):
  //   C = 32 i + 8 jo + ji;  A = 8 i + k;  B = 32 k + 8 jo + ji.
  EXPECT_FLOAT_EQ(Buf(p, i, 0, kStride), L(32));
  EXPECT_FLOAT_EQ(Buf(p, i, 1, kStride), L(8));
  EXPECT_FLOAT_EQ(Buf(p, i, 2, kStride), 0);
  EXPECT_FLOAT_EQ(Buf(p, jo, 0, kStride), L(8));
  EXPECT_FLOAT_EQ(Buf(p, jo, 1, kStride), 0);
  EXPECT_FLOAT_EQ(Buf(p, jo, 2, kStride), L(8));
  EXPECT_FLOAT_EQ(Buf(p, ji, 0, kStride), L(1));
  EXPECT_FLOAT_EQ(Buf(p, ji, 1, kStride), 0);
  EXPECT_FLOAT_EQ(Buf(p, ji, 2, kStride), L(1));
  // The init loop writes C only: 8 elements once each.
  EXPECT_FLOAT_EQ(Buf(p, init, 0, kCount), L(8));
  EXPECT_FLOAT_EQ(Buf(p, init, 0, kReuse), L(1));
  EXPECT_FLOAT_EQ(Buf(p, init, 0, kWritten), 1);
  EXPECT_FLOAT_EQ(Buf(p, init, 1, kCount), 0);

  // The whole program under i: every element of each matrix; C touched 16 * 4 * (8 + 128) times.
  EXPECT_FLOAT_EQ(Buf(p, i, 0, kCount), L(512));
  EXPECT_FLOAT_EQ(Buf(p, i, 0, kReuse), L(16.0 * 4 * 136 / 512));
  EXPECT_FLOAT_EQ(Buf(p, i, 1, kCount), L(128));
  EXPECT_FLOAT_EQ(Buf(p, i, 2, kCount), L(256));
  EXPECT_FLOAT_EQ(Buf(p, i, 2, kReuse), L(4096.0 / 256));
  // i is the parallel loop and has none around it: the parallel columns equal the plain ones.
  EXPECT_FLOAT_EQ(Buf(p, i, 2, kParCount), Buf(p, i, 2, kCount));
  EXPECT_FLOAT_EQ(Buf(p, i, 2, kParReuse), Buf(p, i, 2, kReuse));
}

TEST(ItervarTest, AnotherSplitGivesOtherFeatures) {
  const Program by8 = Matmul(8);
  const Program by4 = Matmul(4);
  ASSERT_EQ(by4.features.itervar.size(), by8.features.itervar.size());
  EXPECT_NE(by4.features.itervar, by8.features.itervar);
  // j.outer runs 8 times with stride 4 in C and B.
  EXPECT_FLOAT_EQ(At(by4, 1, kExtent), L(8));
  EXPECT_FLOAT_EQ(Buf(by4, 1, 0, kStride), L(4));
  EXPECT_FLOAT_EQ(At(by4, 4, kExtent), L(4));
  EXPECT_FLOAT_EQ(At(by4, 4, kTripCount), L(4096));
}

// The matmul accumulating in a local buffer computed at j.outer: the buffer's region moves with
// i and j.outer (its realize mins), so its index does not depend on them, and each iteration of
// the parallel i has its own copy.
TEST(ItervarTest, LocalBufferAtAnOuterLoop) {
  te::Tensor a = te::placeholder({16, 8}, ir::kFloat32, "A");
  te::Tensor b = te::placeholder({8, 32}, ir::kFloat32, "B");
  ir::IterVar k = te::reduce_axis({0, 8}, "k");
  te::Tensor c =
      te::compute({16, 32}, [&](ir::Var i, ir::Var j) { return te::sum(a(i, k) * b(k, j), {k}); },
                  "C", {"i", "j"});
  schedule::Schedule s = schedule::create_schedule({c.op()});
  absl::StatusOr<te::Tensor> local = s.cache_write(c, "local");
  ASSERT_TRUE(local.ok()) << local.status();
  schedule::Stage out = s[c];
  const auto* op = c.op().as<te::ComputeOpNode>();
  absl::StatusOr<schedule::Stage::SplitResult> j = out.split(op->axis[1], 8);
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(out.parallel(op->axis[0]).ok());
  ASSERT_TRUE(s[*local].compute_at(out, j->outer).ok());
  const Program p = Extract(s, {a, b, c});
  // i, j.outer, then the local stage's i.c (1), j.c (8) and k (8), then the copy-out j.inner.
  ASSERT_EQ(p.loops.size(), 6u) << p.ir;
  const int jo = 1, jc = 3, ji = 5;
  ASSERT_EQ(p.loops[jc], "j.c") << p.ir;
  // Under j.outer, C.local (8 elements) is touched most: per iteration of j.outer the init store
  // (8), the update's read and write (64 each) and the copy-out read (8), 4 iterations.
  EXPECT_FLOAT_EQ(Buf(p, jo, 0, kStride), 0) << p.ir;
  EXPECT_FLOAT_EQ(Buf(p, jo, 0, kCount), L(8));
  EXPECT_FLOAT_EQ(Buf(p, jo, 0, kReuse), L(4 * (8 + 64 + 64 + 8) / 8.0));
  // 16 threads, 16 copies.
  EXPECT_FLOAT_EQ(Buf(p, jo, 0, kParCount), L(128));
  EXPECT_FLOAT_EQ(Buf(p, jo, 0, kParReuse), Buf(p, jo, 0, kReuse));
  EXPECT_FLOAT_EQ(Buf(p, jc, 0, kStride), L(1));
  // The copy-out: C walks with stride 1, C.local too.
  EXPECT_FLOAT_EQ(Buf(p, ji, 0, kStride), L(1));
  EXPECT_FLOAT_EQ(Buf(p, ji, 1, kStride), L(1));
}

// B = A + 1 over a fused, split loop: indices of fused loops are floordiv / floormod of the
// fused variable, and a fused loop walks the row-major layout with stride 1.
TEST(ItervarTest, FusedLoopStrides) {
  te::Tensor a = te::placeholder({6, 10}, ir::kFloat32, "A");
  te::Tensor b =
      te::compute({6, 10}, [&](ir::Var i, ir::Var j) { return a(i, j) + 1.0f; }, "B", {"i", "j"});
  schedule::Schedule s = schedule::create_schedule({b.op()});
  schedule::Stage stage = s[b];
  const auto* op = b.op().as<te::ComputeOpNode>();
  absl::StatusOr<ir::IterVar> fused = stage.fuse(op->axis[0], op->axis[1]);
  ASSERT_TRUE(fused.ok());
  absl::StatusOr<schedule::Stage::SplitResult> parts = stage.split(*fused, 4);
  ASSERT_TRUE(parts.ok());
  ASSERT_TRUE(stage.parallel(parts->outer).ok());
  ASSERT_TRUE(stage.unroll(parts->inner).ok());
  const Program p = Extract(s, {a, b});
  ASSERT_EQ(p.features.itervar.size(), 2u) << p.ir;
  // 60 elements in 15 tiles of 4. A before B by name.
  EXPECT_FLOAT_EQ(At(p, 0, kExtent), L(15));
  EXPECT_EQ(At(p, 0, kKindParallel), 1);
  EXPECT_EQ(At(p, 1, kKindUnrolled), 1);
  EXPECT_FLOAT_EQ(At(p, 1, kOpsAdd), L(1));
  EXPECT_FLOAT_EQ(At(p, 0, kOpsAdd), L(4));
  for (int slot : {0, 1}) {
    EXPECT_FLOAT_EQ(Buf(p, 0, slot, kStride), L(4)) << p.ir;
    EXPECT_FLOAT_EQ(Buf(p, 1, slot, kStride), L(1));
    EXPECT_FLOAT_EQ(Buf(p, 1, slot, kCount), L(4));
    // Every thread its own 4 elements: 60 in all, each touched once.
    EXPECT_FLOAT_EQ(Buf(p, 1, slot, kParCount), L(60));
    EXPECT_FLOAT_EQ(Buf(p, 1, slot, kParReuse), L(1));
    EXPECT_FLOAT_EQ(Buf(p, 0, slot, kCount), L(60));
  }
  EXPECT_FLOAT_EQ(Buf(p, 0, 0, kWritten), 0);
  EXPECT_FLOAT_EQ(Buf(p, 0, 1, kWritten), 1);
}

}  // namespace
}  // namespace tessel::costmodels
