// The random model: seeded, deterministic scores in [0, 1) that ignore training.

#include "costmodels/random/random_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "compiler/support/check.h"
#include "costmodels/testing/synthetic.h"

namespace tessel::costmodels {
namespace {

using ::testing::HasSubstr;

class RandomModelTest : public ::testing::Test {
 protected:
  std::unique_ptr<CostModel> Model(uint64_t seed) {
    CostModelOptions options;
    options.seed = seed;
    return MakeRandomModel(options);
  }
  std::vector<double> Predict(CostModel& model) {
    absl::StatusOr<std::vector<double>> scores = model.Predict(task_, configs_);
    TESSEL_CHECK(scores.ok()) << scores.status();
    return *scores;
  }
  search::ConfigSpace space_ = testing::SyntheticSpace(2, 10);
  search::Task task_ = testing::SyntheticTask();
  std::vector<search::Config> configs_ = testing::AllConfigs(space_);
};

TEST_F(RandomModelTest, IsRegisteredWithoutFeatures) {
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeCostModel("random", {});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->name(), "random");
}

TEST_F(RandomModelTest, SameSeedSameScores) {
  std::unique_ptr<CostModel> a = Model(3), b = Model(3), c = Model(4);
  const std::vector<double> first = Predict(*a);
  EXPECT_EQ(first, Predict(*b));
  EXPECT_NE(first, Predict(*c));
  EXPECT_NE(first, Predict(*a));  // the sequence advances
  for (double s : first) {
    EXPECT_GE(s, 0.0);
    EXPECT_LT(s, 1.0);
  }
}

TEST_F(RandomModelTest, ScoresLookUniform) {
  std::vector<double> scores = Predict(*Model(5));
  double mean = 0;
  for (double s : scores) mean += s;
  mean /= static_cast<double>(scores.size());
  EXPECT_NEAR(mean, 0.5, 0.1);  // 100 draws: standard error 0.03
}

TEST_F(RandomModelTest, FitChangesNothing) {
  std::unique_ptr<CostModel> fitted = Model(6), plain = Model(6);
  std::mt19937_64 rng(1);
  ASSERT_TRUE(fitted->Fit(testing::RandomSamples(task_, space_, 20, {1, 2}, 100, rng)).ok());
  EXPECT_EQ(Predict(*fitted), Predict(*plain));
  absl::Status transfer = fitted->FitTransfer({});
  EXPECT_EQ(transfer.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(transfer.message(), HasSubstr("'random'"));
}

TEST_F(RandomModelTest, LoadResumesTheSequence) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/random_model.json";
  std::unique_ptr<CostModel> model = Model(8);
  Predict(*model);
  ASSERT_TRUE(model->Save(path).ok());
  std::unique_ptr<CostModel> loaded = Model(0);
  ASSERT_TRUE(loaded->Load(path).ok());
  EXPECT_EQ(Predict(*loaded), Predict(*model));
}

TEST_F(RandomModelTest, LoadErrorsNameThePath) {
  std::unique_ptr<CostModel> model = Model(0);
  absl::Status status = model->Load("/nonexistent/random.json");
  EXPECT_THAT(status.message(), HasSubstr("/nonexistent/random.json"));
}

}  // namespace
}  // namespace tessel::costmodels
