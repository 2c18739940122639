// XGBoost C API: a rank:pairwise model trained on synthetic groups orders held-out pairs the way
// the hidden scoring function does. A model that learned nothing orders half of them.
#include <gtest/gtest.h>
#include <xgboost/c_api.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

constexpr int kFeatures = 4;
constexpr int kGroupSize = 16;

#define XGB_OK(call) ASSERT_EQ((call), 0) << XGBGetLastError()

float HiddenScore(const float* x) { return 2.0f * x[0] - x[1] + 0.5f * x[2] * x[3]; }

struct Groups {
  std::vector<float> features;  // row-major, kFeatures per row
  std::vector<float> scores;
  std::vector<unsigned> group_sizes;
};

Groups MakeGroups(int num_groups, std::mt19937& rng) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  Groups g;
  for (int group = 0; group < num_groups; ++group) {
    for (int row = 0; row < kGroupSize; ++row) {
      for (int f = 0; f < kFeatures; ++f) g.features.push_back(uniform(rng));
      g.scores.push_back(HiddenScore(&g.features[g.features.size() - kFeatures]));
    }
    g.group_sizes.push_back(kGroupSize);
  }
  return g;
}

TEST(XgboostSmokeTest, ReportsVersion17) {
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 7);
}

TEST(XgboostSmokeTest, PairwiseRankerOrdersHeldOutPairs) {
  std::mt19937 rng(7);
  Groups train = MakeGroups(40, rng);
  Groups test = MakeGroups(10, rng);

  DMatrixHandle dtrain = nullptr;
  XGB_OK(
      XGDMatrixCreateFromMat(train.features.data(), train.scores.size(), kFeatures, NAN, &dtrain));
  XGB_OK(XGDMatrixSetFloatInfo(dtrain, "label", train.scores.data(), train.scores.size()));
  XGB_OK(XGDMatrixSetUIntInfo(dtrain, "group", train.group_sizes.data(), train.group_sizes.size()));

  BoosterHandle booster = nullptr;
  XGB_OK(XGBoosterCreate(&dtrain, 1, &booster));
  XGB_OK(XGBoosterSetParam(booster, "objective", "rank:pairwise"));
  XGB_OK(XGBoosterSetParam(booster, "max_depth", "3"));
  XGB_OK(XGBoosterSetParam(booster, "eta", "0.3"));
  XGB_OK(XGBoosterSetParam(booster, "seed", "1"));
  XGB_OK(XGBoosterSetParam(booster, "nthread", "1"));
  for (int iter = 0; iter < 30; ++iter) XGB_OK(XGBoosterUpdateOneIter(booster, iter, dtrain));

  DMatrixHandle dtest = nullptr;
  XGB_OK(XGDMatrixCreateFromMat(test.features.data(), test.scores.size(), kFeatures, NAN, &dtest));
  bst_ulong num_predictions = 0;
  const float* predictions = nullptr;
  XGB_OK(XGBoosterPredict(booster, dtest, 0, 0, 0, &num_predictions, &predictions));
  ASSERT_EQ(num_predictions, test.scores.size());

  int pairs = 0, ordered = 0;
  for (size_t group = 0; group < test.group_sizes.size(); ++group) {
    const size_t base = group * kGroupSize;
    for (int i = 0; i < kGroupSize; ++i) {
      for (int j = i + 1; j < kGroupSize; ++j) {
        const float truth = test.scores[base + i] - test.scores[base + j];
        if (std::fabs(truth) < 0.1f) continue;  // too close to call
        ++pairs;
        const float guess = predictions[base + i] - predictions[base + j];
        if ((truth > 0) == (guess > 0)) ++ordered;
      }
    }
  }
  ASSERT_GT(pairs, 500);
  EXPECT_GT(static_cast<double>(ordered) / pairs, 0.9) << ordered << " of " << pairs;

  XGB_OK(XGDMatrixFree(dtest));
  XGB_OK(XGBoosterFree(booster));
  XGB_OK(XGDMatrixFree(dtrain));
}

}  // namespace
