// Recall of the true top-k among the predicted top-k, on hand-worked cases.

#include "costmodels/ranking.h"

#include <gtest/gtest.h>

namespace tessel::costmodels {
namespace {

TEST(RankingTest, PerfectOrderRecallsEverything) {
  const std::vector<double> labels = {0.1, 0.9, 0.5, 0.3};
  EXPECT_EQ(RecallAtK(labels, labels, 2), 1.0);
  EXPECT_EQ(AverageRecall(labels, labels, 64), 1.0);
}

TEST(RankingTest, RecallCountsTheOverlapOfTopSets) {
  const std::vector<double> labels = {4, 3, 2, 1};  // true order 0 1 2 3
  const std::vector<double> scores = {1, 4, 3, 2};  // predicted order 1 2 3 0
  EXPECT_EQ(RecallAtK(scores, labels, 1), 0.0);
  EXPECT_EQ(RecallAtK(scores, labels, 2), 0.5);  // {1, 2} vs {0, 1}
  EXPECT_EQ(RecallAtK(scores, labels, 3), 2.0 / 3);
  EXPECT_EQ(RecallAtK(scores, labels, 4), 1.0);
  EXPECT_EQ(RecallAtK(scores, labels, 100), 1.0);  // k clamped to n
  // Mean of the four recalls above.
  EXPECT_DOUBLE_EQ(AverageRecall(scores, labels, 4), (0 + 0.5 + 2.0 / 3 + 1) / 4);
  EXPECT_DOUBLE_EQ(AverageRecall(scores, labels, 2), (0 + 0.5) / 2);
}

TEST(RankingTest, TiesGoToTheLowerIndex) {
  const std::vector<double> labels = {1, 1, 0};
  EXPECT_EQ(RecallAtK({0, 0, 0}, labels, 1), 1.0);  // both pick index 0
  EXPECT_EQ(RecallAtK({0, 1, 0}, labels, 1), 0.0);
}

TEST(RankingTest, NoCandidatesIsPerfect) {
  EXPECT_EQ(RecallAtK({}, {}, 5), 1.0);
  EXPECT_EQ(AverageRecall({}, {}, 5), 1.0);
}

}  // namespace
}  // namespace tessel::costmodels
