// The summary numbers of a tuning run on hand-made trial series whose answers are known.
#include "experiments/stats.h"

#include <gtest/gtest.h>

#include <limits>

namespace tessel::experiments {
namespace {

constexpr double kFail = std::numeric_limits<double>::infinity();

std::vector<Trial> Series(const std::vector<double>& costs) {
  std::vector<Trial> trials;
  for (size_t i = 0; i < costs.size(); ++i) {
    trials.push_back({static_cast<int64_t>(i), costs[i] == kFail ? "runtime" : "none", costs[i]});
  }
  return trials;
}

TEST(StatsTest, RunningBestSkipsFailures) {
  const std::vector<double> best = RunningBest(Series({kFail, 4, 5, kFail, 2, 3}));
  ASSERT_EQ(best.size(), 6u);
  EXPECT_EQ(best[0], kFail);
  EXPECT_EQ(best[1], 4);
  EXPECT_EQ(best[2], 4);
  EXPECT_EQ(best[3], 4);
  EXPECT_EQ(best[4], 2);
  EXPECT_EQ(best[5], 2);
}

TEST(StatsTest, TrialsToBaselineAndTo90Percent) {
  // Baseline 3 s. Best: 10, 10, 6, 4, 2.5 (reaches the baseline at trial 5), 2.5, 2.0 (final).
  // 90% of the final speed: cost <= 2.0 / 0.9 = 2.22: first at trial 7.
  const RunSummary s = Summarize(Series({10, 12, 6, 4, 2.5, kFail, 2.0}), 3.0);
  EXPECT_EQ(s.trials, 7);
  EXPECT_EQ(s.trials_to_baseline, 5);
  EXPECT_EQ(s.trials_to_90pct_of_final, 7);
  ASSERT_TRUE(s.final_speedup.has_value());
  EXPECT_DOUBLE_EQ(*s.final_speedup, 1.5);
  EXPECT_DOUBLE_EQ(s.final_best_seconds, 2.0);
}

TEST(StatsTest, NinetyPercentCountsAnEarlierNearBest) {
  // Final best 1.0; trial 2 at 1.1 is within 90% (1 / 1.1 = 0.909 of the final speed).
  const RunSummary s = Summarize(Series({3, 1.1, 1.05, 1.0}), 0.5);
  EXPECT_EQ(s.trials_to_90pct_of_final, 2);
  EXPECT_FALSE(s.trials_to_baseline.has_value());  // never as fast as 0.5 s
  EXPECT_DOUBLE_EQ(*s.final_speedup, 0.5);
}

TEST(StatsTest, ShareOfTrialsWithinNinetyPercentOfTheFinalBest) {
  // Final best 1.0: 1.1 and 1.0 are within 90% of its speed, 3, 1.2 and the failure are not.
  const RunSummary s = Summarize(Series({3, 1.1, kFail, 1.2, 1.0}), 0);
  EXPECT_DOUBLE_EQ(s.share_within_90pct, 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(Summarize(Series({kFail}), 0).share_within_90pct, 0.0);
}

TEST(StatsTest, ReachingTheBaselineExactlyCounts) {
  const RunSummary s = Summarize(Series({4, 2}), 2.0);
  EXPECT_EQ(s.trials_to_baseline, 2);
  EXPECT_DOUBLE_EQ(*s.final_speedup, 1.0);
}

TEST(StatsTest, NoBaselineLeavesSpeedupsEmpty) {
  const RunSummary s = Summarize(Series({4, 2}), 0);
  EXPECT_FALSE(s.trials_to_baseline.has_value());
  EXPECT_FALSE(s.final_speedup.has_value());
  EXPECT_EQ(s.trials_to_90pct_of_final, 2);
}

TEST(StatsTest, AllFailedOrEmpty) {
  const RunSummary failed = Summarize(Series({kFail, kFail}), 1.0);
  EXPECT_EQ(failed.trials, 2);
  EXPECT_FALSE(failed.trials_to_baseline.has_value());
  EXPECT_FALSE(failed.trials_to_90pct_of_final.has_value());
  EXPECT_FALSE(failed.final_speedup.has_value());
  const RunSummary empty = Summarize({}, 1.0);
  EXPECT_EQ(empty.trials, 0);
  EXPECT_FALSE(empty.final_speedup.has_value());
}

TEST(StatsTest, MedianTreatsEmptyAsNever) {
  EXPECT_EQ(MedianOfOptional({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(MedianOfOptional({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_EQ(MedianOfOptional({std::nullopt, 1.0, 2.0}), 2.0);  // one of three never: still 2
  EXPECT_EQ(MedianOfOptional({std::nullopt, std::nullopt, 2.0}), std::nullopt);
  EXPECT_EQ(MedianOfOptional({std::nullopt, 2.0}), std::nullopt);
  EXPECT_EQ(MedianOfOptional({}), std::nullopt);
}

TEST(StatsTest, TrialsToReachAFractionOfAnotherRunsBest) {
  // Another run's best took 1.0 s; 90% of its speed is a cost of at most 1.11 s.
  const std::vector<double> best = RunningBest(Series({kFail, 3, 1.2, 1.1, 0.9}));
  EXPECT_EQ(TrialsToReach(best, 1.0, 0.9), 4);
  EXPECT_EQ(TrialsToReach(best, 1.0, 1.0), 5);
  EXPECT_EQ(TrialsToReach(best, 0.5, 0.9), std::nullopt);  // never within 90% of 0.5 s
  EXPECT_EQ(TrialsToReach({}, 1.0, 0.9), std::nullopt);
}

TEST(StatsTest, BestAfterNTrialsNeedsThatManyTrials) {
  const std::vector<double> best = RunningBest(Series({kFail, 3, 1.2}));
  EXPECT_EQ(BestAfter(best, 1), std::nullopt);  // nothing succeeded yet
  EXPECT_EQ(BestAfter(best, 2), 3.0);
  EXPECT_EQ(BestAfter(best, 3), 1.2);
  EXPECT_EQ(BestAfter(best, 4), std::nullopt);  // the run has 3 trials
  EXPECT_EQ(BestAfter(best, 0), std::nullopt);
}

TEST(StatsTest, CheckpointsDoubleFromAHundred) {
  EXPECT_EQ(Checkpoints(800), (std::vector<int>{100, 200, 400, 800}));
  EXPECT_EQ(Checkpoints(799), (std::vector<int>{100, 200, 400}));
  EXPECT_EQ(Checkpoints(192), (std::vector<int>{100}));
  EXPECT_TRUE(Checkpoints(99).empty());
}

}  // namespace
}  // namespace tessel::experiments
