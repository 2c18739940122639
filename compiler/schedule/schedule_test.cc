// Each primitive, scheduled versus unscheduled on random data: the schedule runs on each backend,
// the unscheduled reference on the interpreter.
#include <gtest/gtest.h>

#include "compiler/testing/conv2d_schedule.h"
#include "compiler/testing/schedule_check.h"
#include "compiler/testing/workloads.h"

namespace tessel::schedule {
namespace {

using testing::CheckAgainstUnscheduled;

#define ASSERT_OK(expr)                          \
  do {                                           \
    const absl::Status _s = (expr);              \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s; \
  } while (0)
#define ASSIGN(lhs, expr)                                           \
  auto lhs##_or = (expr);                                           \
  ASSERT_TRUE(lhs##_or.ok()) << #expr << ": " << lhs##_or.status(); \
  auto lhs = *lhs##_or

// Every test runs the scheduled program on each backend (the reference on the interpreter).
class ScheduleTest : public ::testing::TestWithParam<testing::Backend> {};

const std::vector<IterVar>& Axes(const Tensor& t) { return t.op().as<te::ComputeOpNode>()->axis; }

TEST_P(ScheduleTest, SplitDivisibleAndNot) {
  for (int factor : {4, 5, 13, 32}) {
    testing::Matmul w = testing::MakeMatmul(26, 17, 9);
    Schedule s = create_schedule({w.C.op()});
    ASSIGN(i, s[w.C].split(Axes(w.C)[0], factor));
    ASSIGN(j, s[w.C].split_nparts(Axes(w.C)[1], 3));
    ASSIGN(k, s[w.C].split(w.k, 4));
    ASSERT_OK(s[w.C].reorder({i.outer, k.outer, j.outer, i.inner, k.inner, j.inner}));
    SCOPED_TRACE(factor);
    ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, factor, GetParam()));
  }
}

TEST_P(ScheduleTest, TileFuseVectorizeUnrollParallel) {
  testing::Matmul w = testing::MakeMatmul(24, 20, 7);
  Schedule s = create_schedule({w.C.op()});
  ASSIGN(t, s[w.C].tile(Axes(w.C)[0], Axes(w.C)[1], 8, 4));
  ASSIGN(fused, s[w.C].fuse(t.x_outer, t.y_outer));
  ASSERT_OK(s[w.C].reorder({fused, w.k, t.x_inner, t.y_inner}));
  ASSERT_OK(s[w.C].parallel(fused));
  ASSERT_OK(s[w.C].unroll(t.x_inner));
  ASSERT_OK(s[w.C].vectorize(t.y_inner));
  ASSERT_OK(s[w.C].pragma(fused, "auto_unroll_max_step", 16));
  ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 1, GetParam()));
}

TEST_P(ScheduleTest, CacheReadAndWriteComputedAt) {
  testing::Matmul w = testing::MakeMatmul(16, 16, 12);
  Schedule s = create_schedule({w.C.op()});
  ASSIGN(AA, s.cache_read(w.A, "local", {w.C.op()}));
  ASSIGN(CC, s.cache_write(w.C, "local"));
  ASSIGN(t, s[w.C].tile(Axes(w.C)[0], Axes(w.C)[1], 4, 4));
  ASSERT_OK(s[CC].compute_at(s[w.C], t.y_outer));
  ASSIGN(k, s[CC].split(w.k, 3));
  ASSERT_OK(s[AA].compute_at(s[CC], k.outer));
  ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 2, GetParam()));
}

// GPU thread binding runs on the interpreter only (the llvm target refuses bound loops).
TEST(ScheduleInterpTest, ThreadBindingWithCooperativeSharedFetch) {
  testing::Matmul w = testing::MakeMatmul(32, 32, 16);
  Schedule s = create_schedule({w.C.op()});
  ASSIGN(AS, s.cache_read(w.A, "shared", {w.C.op()}));
  ASSIGN(BS, s.cache_read(w.B, "shared", {w.C.op()}));
  ASSIGN(t, s[w.C].tile(Axes(w.C)[0], Axes(w.C)[1], 8, 8));
  ASSERT_OK(s[w.C].bind(t.x_outer, "blockIdx.y"));
  ASSERT_OK(s[w.C].bind(t.y_outer, "blockIdx.x"));
  ASSIGN(ty, s[w.C].split(t.x_inner, 2));
  ASSERT_OK(s[w.C].bind(ty.outer, "threadIdx.y"));
  ASSERT_OK(s[w.C].bind(t.y_inner, "threadIdx.x"));
  ASSIGN(k, s[w.C].split(w.k, 4));
  ASSERT_OK(
      s[w.C].reorder({t.x_outer, t.y_outer, ty.outer, t.y_inner, k.outer, ty.inner, k.inner}));
  for (const Tensor& shared : {AS, BS}) {
    ASSERT_OK(s[shared].compute_at(s[w.C], k.outer));
    // The block has 4 x 8 threads: rows go over threadIdx.y in steps of 4.
    const auto& axes = Axes(shared);
    ASSIGN(rows, s[shared].split(axes[0], 4));
    ASSERT_OK(s[shared].bind(rows.inner, "threadIdx.y"));
    ASSERT_OK(s[shared].bind(axes[1], "threadIdx.x"));
  }
  ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 3));
}

// cache_read rewrites its readers' operations; the rewritten ones the schedule drops must not
// free an address the schedule still maps to a stage, where a new operation could be allocated
// and taken for that stage.
TEST(ScheduleOpsTest, OperationsMadeAfterCacheReadsAreNotTakenForStages) {
  testing::Matmul w = testing::MakeMatmul(16, 16, 8);
  Schedule s = create_schedule({w.C.op()});
  ASSIGN(AS, s.cache_read(w.A, "shared", {w.C.op()}));
  ASSIGN(BS, s.cache_read(w.B, "shared", {w.C.op()}));  // drops the op the first one made
  ASSIGN(AL, s.cache_read(AS, "local", {w.C.op()}));    // and this, the second one's
  for (int i = 0; i < 64; ++i) {
    Tensor other = te::compute(
        w.C.shape(), [&](const std::vector<ir::Var>& v) { return w.A(v[0], v[1]); }, "other");
    EXPECT_FALSE(s.stage(other.op()).ok()) << "a new operation found as a stage, at step " << i;
  }
  ASSIGN(stage, s.stage(w.C.op()));
  EXPECT_EQ(stage->origin_op.get(), w.C.op().get());
}

TEST_P(ScheduleTest, Conv2dStride2PaddingInlineAndComputeAt) {
  testing::Conv2d w = testing::MakeConv2d(1, 3, 9, 4, 3, 2, 1);
  {
    Schedule s = create_schedule({w.C.op()});
    ASSERT_OK(s[w.Apad].compute_inline());
    ASSIGN(t, s[w.C].tile(Axes(w.C)[2], Axes(w.C)[3], 2, 3));
    ASSERT_OK(s[w.C].reorder({t.x_outer, t.y_outer, w.rc, w.ry, t.x_inner, w.rx, t.y_inner}));
    ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 4, GetParam()));
  }
  {
    Schedule s = create_schedule({w.C.op()});
    ASSIGN(y, s[w.C].split(Axes(w.C)[2], 2));
    ASSERT_OK(s[w.Apad].compute_at(s[w.C], y.outer));
    ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 5, GetParam()));
  }
}

// A producer computed at a loop of a stage that reads it only through another stage computed
// at that loop: a matmul's tile for an element-wise tail at the output's tile.
TEST_P(ScheduleTest, ComputeAtTheLoopWhereItsConsumerIsComputed) {
  testing::Matmul w = testing::MakeMatmul(16, 12, 8);
  Tensor D = te::compute(
      {16, 12}, [&](ir::Var i, ir::Var j) { return w.C(i, j) + 1.0f; }, "D");
  Tensor E = te::compute(
      {16, 12}, [&](ir::Var i, ir::Var j) { return D(i, j) * 2.0f; }, "E");
  Schedule s = create_schedule({E.op()});
  ASSIGN(i, s[E].split(Axes(E)[0], 4));
  EXPECT_EQ(s[w.C].compute_at(s[E], i.outer).message(),
            "stage C: cannot compute at stage E: E does not consume C");
  ASSERT_OK(s[D].compute_at(s[E], i.outer));
  ASSERT_OK(s[w.C].compute_at(s[E], i.outer));
  ASSERT_OK(CheckAgainstUnscheduled(s, {w.A, w.B, E}, 2, 7, GetParam()));
}

TEST_P(ScheduleTest, DepthwiseConv2d) {
  testing::DepthwiseConv2d w = testing::MakeDepthwiseConv2d(5, 10, 3, 1, 1);
  Schedule s = create_schedule({w.C.op()});
  ASSIGN(c, s[w.C].split(Axes(w.C)[1], 2));
  ASSIGN(x, s[w.C].split(Axes(w.C)[3], 4));
  ASSERT_OK(s[w.C].reorder({c.outer, Axes(w.C)[2], x.outer, w.ry, w.rx, c.inner, x.inner}));
  ASSERT_OK(s[w.Apad].compute_at(s[w.C], Axes(w.C)[2]));
  ASSERT_OK(s[w.C].vectorize(x.inner));
  ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 6, GetParam()));
}

TEST_P(ScheduleTest, UserDefinedReducerArgmax) {
  testing::Argmax w = testing::MakeArgmax(6, 23);
  Schedule s = create_schedule({w.index.op()});
  ASSIGN(k, s[w.index].split(w.k, 5));
  ASSIGN(i, s[w.index].split(Axes(w.index)[0], 4));
  ASSERT_OK(s[w.index].reorder({i.outer, k.outer, i.inner, k.inner}));
  ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 1, 7, GetParam()));
}

TEST_P(ScheduleTest, ElementwiseChainInlined) {
  testing::ElementwiseChain w = testing::MakeElementwiseChain(12, 10);
  Schedule s = create_schedule({w.D.op()});
  ASSERT_OK(s[w.T1].compute_inline());
  ASSERT_OK(s[w.T2].compute_inline());
  ASSIGN(fused, s[w.D].fuse(Axes(w.D)[0], Axes(w.D)[1]));
  ASSIGN(v, s[w.D].split(fused, 8));
  ASSERT_OK(s[w.D].vectorize(v.inner));
  ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 8, GetParam()));
}

TEST_P(ScheduleTest, StorageScopeAlignAndDoubleBuffer) {
  testing::Matmul w = testing::MakeMatmul(16, 12, 8);
  Schedule s = create_schedule({w.C.op()});
  ASSIGN(AA, s.cache_read(w.A, "shared", {w.C.op()}));
  ASSIGN(k, s[w.C].split(w.k, 2));
  ASSERT_OK(s[w.C].reorder({Axes(w.C)[0], k.outer, Axes(w.C)[1], k.inner}));
  ASSERT_OK(s[AA].compute_at(s[w.C], k.outer));
  ASSERT_OK(s[AA].set_scope("local"));
  ASSERT_OK(s[AA].storage_align(Axes(AA)[0], 4, 1));
  ASSERT_OK(s[AA].double_buffer());
  ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 9, GetParam()));
}

TEST_P(ScheduleTest, VirtualThreads) {
  testing::Matmul w = testing::MakeMatmul(16, 16, 4);
  Schedule s = create_schedule({w.C.op()});
  ASSIGN(i, s[w.C].split_nparts(Axes(w.C)[0], 2));
  ASSERT_OK(s[w.C].bind(i.outer, "vthread"));
  ASSERT_OK(CheckAgainstUnscheduled(s, w.args, 2, 10, GetParam()));
}

TEST_P(ScheduleTest, TwelvePrimitiveConv2dScheduleOfTheLoweringBenchmark) {
  testing::Conv2d w = testing::MakeConv2d(1, 16, 8, 32, 3, 1, 1);
  ASSERT_OK(CheckAgainstUnscheduled(testing::TwelvePrimitiveConv2dSchedule(w), w.args, 2, 14,
                                    GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Backends, ScheduleTest, ::testing::ValuesIn(testing::AllBackends()),
                         testing::BackendParamName());

}  // namespace
}  // namespace tessel::schedule
