// Timing workers (timed_side.h, side_process.h) on small GEMMs: ready with their inputs and
// outputs, Tessel's C equal to OpenBLAS's, batches timed round robin while the other worker is
// idle; a bad request, a worker that dies and bad options are errors naming them.
#include "experiments/side_process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "experiments/gemm_job.h"

namespace tessel::experiments {
namespace {

using ::testing::HasSubstr;

nlohmann::json Gemm(const std::string& side, int64_t m = 64) {
  return {{"kind", "gemm"}, {"side", side}, {"m", m}, {"n", 48}, {"k", 32}, {"threads", 1}};
}

TEST(SideProcessTest, WorkersTimeTheirSidesInTurn) {
  absl::StatusOr<std::unique_ptr<SideProcess>> ours = SideProcess::Start("tessel", Gemm("tessel"));
  ASSERT_TRUE(ours.ok()) << ours.status();
  absl::StatusOr<std::unique_ptr<SideProcess>> blas =
      SideProcess::Start("openblas", Gemm("openblas"));
  ASSERT_TRUE(blas.ok()) << blas.status();
  for (const auto* side : {&*ours, &*blas}) {
    ASSERT_EQ((*side)->inputs().size(), 2u);
    ASSERT_EQ((*side)->outputs().size(), 1u);
    EXPECT_EQ((*side)->outputs()[0].shape(), (std::vector<int64_t>{64, 48}));
  }
  EXPECT_TRUE((*ours)->info().contains("compile_seconds")) << (*ours)->info().dump();
  // Both seeded alike: the same A, and C checked against OpenBLAS's in another process.
  EXPECT_EQ((*ours)->inputs()[0].data<float>()[5], (*blas)->inputs()[0].data<float>()[5]);
  const absl::Status same =
      CompareGemmOutputs((*ours)->outputs()[0], (*blas)->outputs()[0], /*k=*/32);
  EXPECT_TRUE(same.ok()) << same;

  absl::StatusOr<double> one = (*ours)->TimeBatch(3);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_GT(*one, 0);
  EXPECT_GT((*ours)->CpuSeconds(), 0);

  absl::StatusOr<std::vector<SideTiming>> timed =
      TimeRoundRobin({ours->get(), blas->get()}, {.warmup = 1, .repeat = 4, .min_repeat_ms = 1});
  ASSERT_TRUE(timed.ok()) << timed.status();
  ASSERT_EQ(timed->size(), 2u);
  for (const SideTiming& t : *timed) {
    ASSERT_EQ(t.seconds.size(), 4u);
    for (double s : t.seconds) EXPECT_TRUE(std::isfinite(s) && s > 0);
    EXPECT_GE(t.runs_per_repeat, 1);
    EXPECT_GE(t.max_interference, 0);
  }
}

TEST(SideProcessTest, ErrorsNameTheSideAndWhatWentWrong) {
  absl::Status s =
      SideProcess::Start("mine", {{"kind", "fft"}, {"side", "x"}, {"threads", 1}}).status();
  EXPECT_THAT(s.message(), HasSubstr("mine: unknown kind 'fft'")) << s;

  s = SideProcess::Start("mine", Gemm("cublas")).status();
  EXPECT_THAT(s.message(), HasSubstr("kind 'gemm' has no side 'cublas'")) << s;

  s = SideProcess::Start("mine", {{"kind", "gemm"}, {"side", "tessel"}, {"threads", 0}}).status();
  EXPECT_THAT(s.message(), HasSubstr("no valid 'threads'")) << s;

  absl::StatusOr<std::unique_ptr<SideProcess>> side = SideProcess::Start("tessel", Gemm("tessel"));
  ASSERT_TRUE(side.ok()) << side.status();
  EXPECT_THAT(TimeRoundRobin({side->get()}, {.repeat = 0}).status().message(),
              HasSubstr("repeat must be >= 1"));
  EXPECT_THAT(TimeRoundRobin({side->get()}, {.warmup = -1}).status().message(),
              HasSubstr("warmup must be >= 0"));
  EXPECT_THAT(TimeRoundRobin({side->get()}, {.min_warm_ms = -1}).status().message(),
              HasSubstr("min_warm_ms must be a number >= 0"));

  setenv("TESSEL_TIMING_WORKER", "/nonexistent/worker", 1);
  s = SideProcess::Start("mine", Gemm("tessel")).status();
  unsetenv("TESSEL_TIMING_WORKER");
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("/nonexistent/worker"));
}

TEST(SideProcessTest, AWorkerThatDiesIsReportedWithItsLog) {
  // Operands of 2^60 floats cannot be allocated: the worker stops before it is ready.
  absl::Status s = SideProcess::Start("huge", Gemm("openblas", int64_t{1} << 60)).status();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("huge: ")) << s;
}

}  // namespace
}  // namespace tessel::experiments
