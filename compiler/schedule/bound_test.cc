// Bound inference of a stage computed inside a tile whose split does not divide its axis: the
// stage's region is the tile (plus the consumer's halo), not the whole axis, and the guarded
// tail still computes the unscheduled result on each backend.
#include "compiler/schedule/bound.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/testing/schedule_check.h"
#include "compiler/testing/workloads.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::schedule {
namespace {

#define ASSERT_OK(expr)                          \
  do {                                           \
    const absl::Status _s = (expr);              \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s; \
  } while (0)
#define ASSIGN(lhs, expr)                                           \
  auto lhs##_or = (expr);                                           \
  ASSERT_TRUE(lhs##_or.ok()) << #expr << ": " << lhs##_or.status(); \
  auto lhs = *lhs##_or

const std::vector<IterVar>& Axes(const Tensor& t) { return t.op().as<te::ComputeOpNode>()->axis; }

// The inferred extents of a stage's axes, as constants (-1 where an extent is not one).
std::vector<int64_t> Extents(const Schedule& s, const Tensor& t) {
  absl::StatusOr<BoundMap> bounds = InferBound(s);
  EXPECT_TRUE(bounds.ok()) << bounds.status();
  std::vector<int64_t> extents;
  if (!bounds.ok()) return extents;
  for (const IterVar& iv : Axes(t)) {
    const int64_t* e = ir::AsConstInt(bounds->at(iv.get()).extent);
    extents.push_back(e ? *e : -1);
  }
  return extents;
}

// Every test runs the scheduled program on each backend (the reference on the interpreter).
class NonDividingTileTest : public ::testing::TestWithParam<testing::Backend> {};

// The register-tile GEMM shape (compiler/ops/x86/gemm.cc): an accumulator computed at a 4 x 8
// tile of a 12 x 20 result; 8 does not divide 20.
TEST_P(NonDividingTileTest, CacheWriteAtTileCoversTheTile) {
  testing::Matmul w = testing::MakeMatmul(12, 20, 5);
  Schedule s = create_schedule({w.C.op()});
  ASSIGN(acc, s.cache_write(w.C, "local"));
  ASSIGN(t, s[w.C].tile(Axes(w.C)[0], Axes(w.C)[1], 4, 8));
  ASSERT_OK(s[acc].compute_at(s[w.C], t.y_outer));
  EXPECT_EQ(Extents(s, acc), (std::vector<int64_t>{4, 8}));
  ASSIGN(f, transforms::Lower(s, w.args, "gemm"));
  EXPECT_NE(ir::ToString(f).find("allocate C.local: float32[32] scope \"local\""),
            std::string::npos)
      << ir::ToString(f);
  ASSERT_OK(testing::CheckAgainstUnscheduled(s, w.args, 2, 3, GetParam()));
}

// A stencil whose reads reach one element past the tile on each side and past the tensor at both
// ends: the region is the tile plus the halo.
TEST_P(NonDividingTileTest, ComputeAtTileWithHaloCoversTileAndHalo) {
  const int n = 21;
  Tensor A = te::placeholder({n}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {n}, [&](ir::Var i) { return A(i) * 2.0f; }, "B");
  Tensor C = te::compute(
      {n},
      [&](ir::Var i) {
        return ir::if_then_else(i > 0, B(i - 1), 0.0f) + B(i) +
               ir::if_then_else(i < n - 1, B(i + 1), 0.0f);
      },
      "C");
  Schedule s = create_schedule({C.op()});
  ASSIGN(i, s[C].split(Axes(C)[0], 8));
  ASSERT_OK(s[B].compute_at(s[C], i.outer));
  EXPECT_EQ(Extents(s, B), (std::vector<int64_t>{10}));
  ASSIGN(f, transforms::Lower(s, {A, C}, "stencil"));
  EXPECT_NE(ir::ToString(f).find("allocate B: float32[10]"), std::string::npos) << ir::ToString(f);
  ASSERT_OK(testing::CheckAgainstUnscheduled(s, {A, C}, 1, 5, GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Backends, NonDividingTileTest, ::testing::ValuesIn(testing::AllBackends()),
                         testing::BackendParamName());

}  // namespace
}  // namespace tessel::schedule
