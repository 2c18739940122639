// Curve features of small programs checked by hand, and their fixed length.
#include "costmodels/features/curve.h"

#include <gtest/gtest.h>

#include <cmath>

#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "costmodels/features/program_features.h"

namespace tessel::costmodels {
namespace {

float L(double x) { return static_cast<float>(std::log2(1 + x)); }

TEST(CurveTest, ElementwiseByHand) {
  // B[i] = A[i] * 2 over 64 elements, one loop: each access goes from 1 element (level 0) to 64
  // (level 1); log2 of the count is interpolated linearly, 6u at point u. Reuse is 1 throughout.
  te::Tensor a = te::placeholder({64}, ir::kFloat32, "A");
  te::Tensor b = te::compute(
      {64}, [&](ir::Var i) { return a(i) * 2.0f; }, "B");
  absl::StatusOr<ProgramFeatures> f =
      ExtractProgramFeatures(schedule::create_schedule({b.op()}), {a, b});
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<float>& c = f->curve;
  ASSERT_EQ(c.size(), static_cast<size_t>(kCurveWidth));
  for (int slot : {0, 1}) {  // A, then B (equal touches, by name)
    const float* counts = c.data() + slot * 2 * kCurvePoints;
    for (int j = 0; j < kCurvePoints; ++j) {
      const double u = static_cast<double>(j) / (kCurvePoints - 1);
      EXPECT_NEAR(counts[j], L(std::exp2(6 * u)), 1e-5) << slot << " " << j;
      EXPECT_NEAR(counts[kCurvePoints + j], L(1), 1e-6);
    }
  }
  // No third buffer.
  for (int j = 0; j < 2 * kCurvePoints; ++j) EXPECT_EQ(c[2 * 2 * kCurvePoints + j], 0);
  const float* g = c.data() + kCurveBuffers * 2 * kCurvePoints;
  EXPECT_FLOAT_EQ(g[kGlobalMul], L(64));
  EXPECT_FLOAT_EQ(g[kGlobalAdd], 0);
  EXPECT_FLOAT_EQ(g[kGlobalParallelExtent], 0);
  EXPECT_FLOAT_EQ(g[kGlobalVectorizedOps], 0);
  EXPECT_FLOAT_EQ(g[kGlobalLoops], L(1));
}

TEST(CurveTest, ReuseOfAReduction) {
  // s[i] = sum_k A[i, k] with i, k of 4 and 8, loop order i, k. The update reads and writes s:
  // its levels 0, 1 (k), 2 (i) have counts 1, 1, 4 and touches 1, 8, 32 per access; the init
  // store, inside i only, has counts 1, 4 and touches 1, 4.
  te::Tensor a = te::placeholder({4, 8}, ir::kFloat32, "A");
  ir::IterVar k = te::reduce_axis({0, 8}, "k");
  te::Tensor s = te::compute(
      {4}, [&](ir::Var i) { return te::sum(a(i, k), {k}); }, "s");
  schedule::Schedule sch = schedule::create_schedule({s.op()});
  absl::StatusOr<ProgramFeatures> f = ExtractProgramFeatures(sch, {a, s});
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<float>& c = f->curve;
  // s has 4 + 32 + 32 touches, A 32: s first.
  const float* s_counts = c.data();
  const float* s_reuse = s_counts + kCurvePoints;
  EXPECT_NEAR(s_counts[0], L(1), 1e-6);
  EXPECT_NEAR(s_counts[kCurvePoints - 1], L(4), 1e-6);
  // At the last point: every access at its outermost level: touches 4 + 32 + 32 over 4 elements.
  EXPECT_NEAR(s_reuse[kCurvePoints - 1], L(68.0 / 4), 1e-5);
  const float* a_counts = c.data() + 2 * kCurvePoints;
  EXPECT_NEAR(a_counts[kCurvePoints - 1], L(32), 1e-6);
  EXPECT_NEAR(a_counts[0], L(1), 1e-6);
}

}  // namespace
}  // namespace tessel::costmodels
