// The xgb model on a synthetic space with a known optimum (features: the fake extractor's value
// indices): it ranks the optimum at the top, is deterministic, saves and loads, and a prior from a
// related task helps when the task has few samples.

#include "costmodels/xgboost/xgb_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>

#include "compiler/support/check.h"
#include "costmodels/ranking.h"
#include "costmodels/testing/fake_features.h"
#include "costmodels/testing/synthetic.h"

namespace tessel::costmodels {
namespace {

using testing::AllConfigs;
using testing::FakeFeatureExtractor;
using ::testing::HasSubstr;
using testing::RandomSamples;
using testing::SyntheticSpace;
using testing::SyntheticTask;
using testing::SyntheticThroughput;

const std::vector<int64_t> kOptimum = {3, 7, 5};

std::unique_ptr<CostModel> NewModel(uint64_t seed = 0,
                                    std::shared_ptr<FeatureExtractor> features = nullptr) {
  CostModelOptions options;
  options.seed = seed;
  options.features = features ? features : std::make_shared<FakeFeatureExtractor>();
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeXgbModel(options);
  TESSEL_CHECK(model.ok()) << model.status();
  return *std::move(model);
}

std::vector<double> Truth(const std::vector<search::Config>& configs,
                          const std::vector<int64_t>& optimum) {
  std::vector<double> truth;
  for (const search::Config& c : configs) truth.push_back(SyntheticThroughput(c, optimum));
  return truth;
}

// Position of config `index` when the scores are sorted best first.
int RankOf(const std::vector<double>& scores, int64_t index) {
  int rank = 0;
  for (double s : scores) rank += s > scores[index];
  return rank;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

class XgbModelTest : public ::testing::Test {
 protected:
  search::ConfigSpace space_ = SyntheticSpace();
  search::Task task_ = SyntheticTask();
  std::vector<search::Config> all_ = AllConfigs(space_);

  std::vector<Sample> Samples(int n, uint64_t seed, const std::vector<int64_t>& optimum = kOptimum,
                              double scale = 100, const search::Task* task = nullptr) {
    std::mt19937_64 rng(seed);
    return RandomSamples(task ? *task : task_, space_, n, optimum, scale, rng);
  }
  std::vector<double> PredictAll(CostModel& model) {
    absl::StatusOr<std::vector<double>> scores = model.Predict(task_, all_);
    TESSEL_CHECK(scores.ok()) << scores.status();
    return *std::move(scores);
  }
  int64_t OptimumIndex() const { return (*space_.FromValueIndices(kOptimum)).index(); }
};

TEST_F(XgbModelTest, IsRegistered) {
  CostModelOptions options;
  options.features = std::make_shared<FakeFeatureExtractor>();
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeCostModel("xgb", options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->name(), "xgb");
}

TEST_F(XgbModelTest, NeedsAFeatureExtractor) {
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeXgbModel(CostModelOptions{});
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(), HasSubstr("CostModelOptions::features"));
  CostModelOptions options;
  options.features = std::make_shared<FakeFeatureExtractor>();
  options.threads = 0;
  model = MakeXgbModel(options);
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(), HasSubstr("threads"));
}

TEST_F(XgbModelTest, RanksTheOptimumAtTheTop) {
  std::unique_ptr<CostModel> model = NewModel();
  const std::vector<Sample> samples = Samples(150, 1);
  ASSERT_TRUE(model->Fit(samples).ok());
  const std::vector<double> scores = PredictAll(*model);
  ASSERT_EQ(scores.size(), all_.size());
  EXPECT_LT(RankOf(scores, OptimumIndex()), 5);
  const double recall = RecallAtK(scores, Truth(all_, kOptimum), 64);
  EXPECT_GE(recall, 0.6);
  std::printf("xgb on 150 samples: optimum at rank %d, recall@64 %.3f\n",
              RankOf(scores, OptimumIndex()), recall);
}

TEST_F(XgbModelTest, SameSeedSamePredictions) {
  const std::vector<Sample> samples = Samples(100, 2);
  std::unique_ptr<CostModel> a = NewModel(7), b = NewModel(7);
  ASSERT_TRUE(a->Fit(samples).ok());
  ASSERT_TRUE(b->Fit(samples).ok());
  EXPECT_EQ(PredictAll(*a), PredictAll(*b));
}

TEST_F(XgbModelTest, FitReplacesWhatEarlierFitsLearned) {
  std::unique_ptr<CostModel> refit = NewModel(), fresh = NewModel();
  ASSERT_TRUE(refit->Fit(Samples(100, 3, {9, 0, 0})).ok());
  ASSERT_TRUE(refit->Fit(Samples(100, 4)).ok());
  ASSERT_TRUE(fresh->Fit(Samples(100, 4)).ok());
  EXPECT_EQ(PredictAll(*refit), PredictAll(*fresh));
}

TEST_F(XgbModelTest, PredictBeforeFitGivesZeros) {
  std::unique_ptr<CostModel> model = NewModel();
  EXPECT_EQ(PredictAll(*model), std::vector<double>(all_.size(), 0.0));
}

TEST_F(XgbModelTest, SamplesWithoutThroughputTeachNothing) {
  std::unique_ptr<CostModel> model = NewModel();
  std::vector<Sample> samples = Samples(20, 5);
  for (Sample& s : samples) s.throughput = 0;
  ASSERT_TRUE(model->Fit(samples).ok());
  EXPECT_EQ(PredictAll(*model), std::vector<double>(all_.size(), 0.0));
}

TEST_F(XgbModelTest, SaveAndLoadGiveTheSamePredictions) {
  std::unique_ptr<CostModel> model = NewModel();
  search::Task other = SyntheticTask("other");
  ASSERT_TRUE(model->FitTransfer(Samples(100, 6, {4, 7, 5}, 300, &other)).ok());
  ASSERT_TRUE(model->Fit(Samples(30, 7)).ok());
  const std::string path = TempPath("xgb_model.json");
  ASSERT_TRUE(model->Save(path).ok());
  std::unique_ptr<CostModel> loaded = NewModel();
  absl::Status status = loaded->Load(path);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(PredictAll(*loaded), PredictAll(*model));
}

TEST_F(XgbModelTest, LoadErrorsNameThePath) {
  std::unique_ptr<CostModel> model = NewModel();
  absl::Status missing = model->Load(TempPath("no_such_model.json"));
  EXPECT_THAT(missing.message(), HasSubstr("no_such_model.json"));
  const std::string path = TempPath("not_a_model.json");
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("{\"model\": \"random\", \"version\": 1}\n", f);
  std::fclose(f);
  absl::Status wrong = model->Load(path);
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.message(), HasSubstr("not_a_model.json"));
  EXPECT_THAT(wrong.message(), HasSubstr("\"model\""));
}

// A prior from a related task (optimum one step away in k0, 3x the throughput) and 10 samples of
// the task rank the task's top 64 better than the 10 samples alone.
TEST_F(XgbModelTest, TransferHelpsWithFewSamples) {
  const search::Task source = SyntheticTask("source");
  const std::vector<Sample> target = Samples(10, 8);
  const std::vector<double> truth = Truth(all_, kOptimum);

  std::unique_ptr<CostModel> alone = NewModel();
  ASSERT_TRUE(alone->Fit(target).ok());
  const double recall_alone = RecallAtK(PredictAll(*alone), truth, 64);

  std::unique_ptr<CostModel> seeded = NewModel();
  ASSERT_TRUE(seeded->FitTransfer(Samples(300, 9, {4, 7, 5}, 300, &source)).ok());
  // Before any sample of the task: the prior's ranking alone.
  const double recall_prior = RecallAtK(PredictAll(*seeded), truth, 64);
  ASSERT_TRUE(seeded->Fit(target).ok());
  const std::vector<double> scores = PredictAll(*seeded);
  const double recall_seeded = RecallAtK(scores, truth, 64);
  std::printf("recall@64 with 10 samples: alone %.3f, prior only %.3f, prior + samples %.3f\n",
              recall_alone, recall_prior, recall_seeded);
  EXPECT_GE(recall_seeded, recall_alone + 0.2);
  EXPECT_LT(RankOf(scores, OptimumIndex()), 20);
}

TEST_F(XgbModelTest, ThePriorFadesAsTheTaskGainsSamples) {
  // With 400 samples the weight 2^(-400/64) < 0.05: the prior is dropped, so the model predicts as
  // one without it.
  const search::Task source = SyntheticTask("source");
  const std::vector<Sample> target = Samples(400, 10);
  std::unique_ptr<CostModel> seeded = NewModel(), alone = NewModel();
  ASSERT_TRUE(seeded->FitTransfer(Samples(200, 11, {0, 0, 0}, 100, &source)).ok());
  ASSERT_TRUE(seeded->Fit(target).ok());
  ASSERT_TRUE(alone->Fit(target).ok());
  EXPECT_EQ(PredictAll(*seeded), PredictAll(*alone));
}

TEST_F(XgbModelTest, ConfigsWithoutFeaturesRankLast) {
  const std::vector<Sample> samples = Samples(100, 12);
  const int64_t optimum = OptimumIndex();
  // The optimum cannot be lowered: left out of training, scored below everything else.
  auto features = std::make_shared<FakeFeatureExtractor>(std::set<int64_t>{optimum});
  std::unique_ptr<CostModel> model = NewModel(0, features);
  std::vector<Sample> with_optimum = samples;
  with_optimum.push_back(Sample{task_, all_[optimum], 100});
  ASSERT_TRUE(model->Fit(with_optimum).ok());
  const std::vector<double> scores = PredictAll(*model);
  EXPECT_EQ(RankOf(scores, optimum), static_cast<int>(all_.size()) - 1);
  // Nothing can be scored: the extractor's error.
  absl::StatusOr<std::vector<double>> none = model->Predict(task_, {all_[optimum]});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("does not lower"));
}

// Rows of different lengths (programs with more loops): zero-padded in training, truncated or
// padded in prediction, never a crash.
class VariableWidthExtractor : public FeatureExtractor {
 public:
  absl::StatusOr<std::vector<float>> Flat(const search::Task&,
                                          const search::Config& config) override {
    std::vector<float> row;
    for (int64_t v : config.value_indices()) row.push_back(static_cast<float>(v));
    row.resize(row.size() + config.value_indices()[0], 1.0f);
    return row;
  }
  absl::StatusOr<LoopTree> Tree(const search::Task&, const search::Config&) override {
    return LoopTree{};
  }
};

TEST_F(XgbModelTest, RowsOfDifferentLengths) {
  std::unique_ptr<CostModel> model = NewModel(0, std::make_shared<VariableWidthExtractor>());
  std::vector<Sample> samples;
  for (Sample& s : Samples(200, 13)) {
    if (s.config.value_indices()[0] < 5) samples.push_back(s);  // rows up to 3 + 4 long
  }
  ASSERT_TRUE(model->Fit(samples).ok());
  const std::vector<double> scores = PredictAll(*model);  // rows up to 3 + 9 long
  EXPECT_LT(RankOf(scores, OptimumIndex()), 20);
}

}  // namespace
}  // namespace tessel::costmodels
