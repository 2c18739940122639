// Every misuse of a schedule primitive returns an error naming the stage and the axis.
#include <gtest/gtest.h>

#include "compiler/schedule/schedule.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::schedule {
namespace {

using ir::Var;

class PrimitiveErrorTest : public ::testing::Test {
 protected:
  PrimitiveErrorTest() {
    A = te::placeholder({64, 32}, ir::kFloat32, "A");
    B = te::placeholder({32, 48}, ir::kFloat32, "B");
    k = te::reduce_axis({0, 32}, "k");
    C = te::compute(
        {64, 48}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
    D = te::compute(
        {64, 48}, [&](Var i, Var j) { return C(i, j) * 2.0f; }, "D");
    s = create_schedule({D.op()});
  }
  const std::vector<IterVar>& Axes(const Tensor& t) { return t.op().as<te::ComputeOpNode>()->axis; }

  Tensor A, B, C, D;
  IterVar k;
  Schedule s;
};

TEST_F(PrimitiveErrorTest, SplittingAnAxisOfAnotherStage) {
  auto r = s[C].split(Axes(D)[0], 4);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "stage C: cannot split axis i: it belongs to stage D");
}

TEST_F(PrimitiveErrorTest, SplittingTwice) {
  ASSERT_TRUE(s[C].split(Axes(C)[0], 4).ok());
  auto r = s[C].split(Axes(C)[0], 2);
  EXPECT_EQ(r.status().message(),
            "stage C: cannot split axis i: it was already split or fused and is no longer a loop");
}

TEST_F(PrimitiveErrorTest, NonPositiveFactor) {
  EXPECT_EQ(s[C].split(Axes(C)[1], 0).status().message(),
            "stage C: cannot split axis j: the factor must be a positive integer");
}

TEST_F(PrimitiveErrorTest, ComputeAtANonAncestor) {
  absl::Status st = s[D].compute_at(s[C], Axes(C)[0]);
  EXPECT_EQ(st.message(), "stage D: cannot compute at stage C: D is an output");
  Tensor E = te::compute(
      {64, 48}, [&](Var i, Var j) { return D(i, j) + 1.0f; }, "E");
  Tensor F = te::compute(
      {64, 48}, [&](Var i, Var j) { return C(i, j) + 1.0f; }, "F");
  Schedule s2 = create_schedule({E.op(), F.op()});
  st = s2[D].compute_at(s2[F], Axes(F)[0]);
  EXPECT_EQ(st.message(), "stage D: cannot compute at stage F: F does not consume D");
  st = s2[C].compute_at(s2[D], Axes(C)[0]);
  EXPECT_EQ(st.message(),
            "stage C: cannot compute at stage D: stage D: cannot compute a stage at axis i: it "
            "belongs to stage C");
}

TEST_F(PrimitiveErrorTest, ReorderingAFusedAxis) {
  auto fused = s[D].fuse(Axes(D)[0], Axes(D)[1]);
  ASSERT_TRUE(fused.ok()) << fused.status();
  absl::Status st = s[D].reorder({Axes(D)[1], *fused});
  EXPECT_EQ(st.message(),
            "stage D: cannot reorder axis j: it was already split or fused and is no longer a "
            "loop");
}

TEST_F(PrimitiveErrorTest, FusingNonAdjacentOrMixedAxes) {
  EXPECT_EQ(s[C].fuse(Axes(C)[1], Axes(C)[0]).status().message(),
            "stage C: cannot fuse axes j and i: i is not the loop immediately inside j");
  EXPECT_EQ(s[C].fuse(Axes(C)[1], k).status().message(),
            "stage C: cannot fuse axes j and k: one is a reduction axis and the other is not");
}

TEST_F(PrimitiveErrorTest, VectorizingANonConstantExtent) {
  Var n("n");
  Tensor X = te::placeholder({n}, ir::kFloat32, "X");
  Tensor Y = te::compute(
      {n}, [&](Var i) { return X(i) + 1.0f; }, "Y");
  Schedule sy = create_schedule({Y.op()});
  absl::Status st = sy[Y].vectorize(Axes(Y)[0]);
  EXPECT_EQ(st.message(), "stage Y: cannot vectorize axis i: its extent is not a constant");
  auto parts = sy[Y].split(Axes(Y)[0], 8);
  ASSERT_TRUE(parts.ok());
  EXPECT_TRUE(sy[Y].vectorize(parts->inner).ok());
  EXPECT_EQ(sy[Y].unroll(parts->outer).message(),
            "stage Y: cannot unroll axis i.outer: its extent is not a constant");
}

TEST_F(PrimitiveErrorTest, BindingOneThreadAxisTwice) {
  ASSERT_TRUE(s[D].bind(Axes(D)[0], "threadIdx.x").ok());
  EXPECT_EQ(s[D].bind(Axes(D)[1], "threadIdx.x").message(),
            "stage D: cannot bind axis j to threadIdx.x: threadIdx.x is already bound to axis i");
  EXPECT_EQ(s[D].bind(Axes(D)[1], "warp.x").message(),
            "stage D: cannot bind axis j to warp.x: not a thread index (blockIdx.x/y/z, "
            "threadIdx.x/y/z or vthread)");
  EXPECT_EQ(s[D].vectorize(Axes(D)[0]).message(),
            "stage D: cannot vectorize axis i: it is bound to threadIdx.x");
}

TEST_F(PrimitiveErrorTest, InliningAReductionOrAnOutput) {
  EXPECT_EQ(s[C].compute_inline().message(), "stage C: cannot compute inline: it is a reduction");
  EXPECT_EQ(s[D].compute_inline().message(), "stage D: cannot compute inline: it is an output");
}

TEST_F(PrimitiveErrorTest, CacheReadForAStageThatDoesNotRead) {
  auto r = s.cache_read(A, "shared", {D.op()});
  EXPECT_EQ(r.status().message(), "cannot cache_read A into shared: stage D does not read A");
  auto w = s.cache_write(A, "local");
  EXPECT_EQ(w.status().message(), "cannot cache_write A into local: not a compute");
}

TEST_F(PrimitiveErrorTest, TensorizeWithoutIntrinsic) {
  EXPECT_EQ(s[C].tensorize(Axes(C)[0], te::TensorIntrin()).message(),
            "stage C: cannot tensorize axis i: no intrinsic given");
}

}  // namespace
}  // namespace tessel::schedule
