// Cost models written in Python (`py:MODULE`): they learn and rank through host.py as the C++
// models do, save and load, and every way a module can fail is one clear error.
#include "costmodels/python/py_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "costmodels/ranking.h"
#include "costmodels/testing/fake_features.h"
#include "costmodels/testing/synthetic.h"

namespace tessel::costmodels {
namespace {

using testing::AllConfigs;
using ::testing::HasSubstr;
using testing::SyntheticSpace;
using testing::SyntheticTask;
using testing::SyntheticThroughput;

constexpr char kNearest[] = "py:costmodels/python/testing/nearest_model.py";
constexpr char kSklearn[] = "py:costmodels/python/examples/sklearn_ranker.py";
constexpr char kBroken[] = "py:costmodels/python/testing/broken_models.py";

CostModelOptions Options() {
  CostModelOptions o;
  o.features = std::make_shared<testing::FakeFeatureExtractor>();
  o.seed = 3;
  return o;
}

std::unique_ptr<CostModel> Make(const std::string& name) {
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeCostModel(name, Options());
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : nullptr;
}

// 150 samples of the synthetic space drawn at random (a third failed, throughput 0).
std::vector<Sample> TrainingSamples(const search::ConfigSpace& space) {
  std::mt19937_64 rng(5);
  std::vector<Sample> samples;
  for (const search::Config& c : space.SampleUnique(150, rng)) {
    const double throughput = c.index() % 3 == 0 ? 0.0 : SyntheticThroughput(c, {7, 2, 5});
    samples.push_back({SyntheticTask(), c, throughput});
  }
  return samples;
}

// How well a model trained on TrainingSamples ranks the whole space: the average recall of the
// true top-k in the predicted top-k, k = 1..64 (random scores: about 0.03).
double RankingQuality(CostModel& model) {
  const search::ConfigSpace space = SyntheticSpace();
  absl::Status fit = model.Fit(TrainingSamples(space));
  EXPECT_TRUE(fit.ok()) << fit;
  const std::vector<search::Config> all = AllConfigs(space);
  absl::StatusOr<std::vector<double>> scores = model.Predict(SyntheticTask(), all);
  EXPECT_TRUE(scores.ok()) << scores.status();
  if (!scores.ok()) return 0;
  EXPECT_EQ(scores->size(), all.size());
  std::vector<double> truth;
  for (const search::Config& c : all) truth.push_back(SyntheticThroughput(c, {7, 2, 5}));
  return AverageRecall(*scores, truth, 64);
}

TEST(PythonModelTest, NamedAsAFamily) {
  EXPECT_TRUE(IsCostModelName("py:anything.at_all"));
  EXPECT_FALSE(IsCostModelName("py:"));
  EXPECT_FALSE(IsCostModelName("pyx:module"));
  EXPECT_THAT(CostModelNames(), ::testing::Contains("py:<MODULE>"));
  std::unique_ptr<CostModel> model = Make(kNearest);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->name(), kNearest);
}

TEST(PythonModelTest, LearnsToRank) {
  std::unique_ptr<CostModel> model = Make(kNearest);
  ASSERT_NE(model, nullptr);
  EXPECT_GT(RankingQuality(*model), 0.3);
}

// The example of costmodels/README.md.
TEST(PythonModelTest, SklearnExampleLearnsToRank) {
  std::unique_ptr<CostModel> model = Make(kSklearn);
  ASSERT_NE(model, nullptr);
  EXPECT_GT(RankingQuality(*model), 0.3);
}

TEST(PythonModelTest, SavesAndLoads) {
  const search::ConfigSpace space = SyntheticSpace();
  std::unique_ptr<CostModel> trained = Make(kNearest);
  ASSERT_NE(trained, nullptr);
  ASSERT_TRUE(trained->Fit(TrainingSamples(space)).ok());
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/nearest.npz";
  ASSERT_TRUE(trained->Save(path).ok());
  std::unique_ptr<CostModel> loaded = Make(kNearest);
  ASSERT_NE(loaded, nullptr);
  absl::Status s = loaded->Load(path);
  ASSERT_TRUE(s.ok()) << s;
  const std::vector<search::Config> all = AllConfigs(space);
  EXPECT_EQ(*trained->Predict(SyntheticTask(), all), *loaded->Predict(SyntheticTask(), all));
  s = loaded->Load("/nonexistent/model.npz");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("/nonexistent/model.npz"));
}

absl::Status MakeError(const std::string& name) {
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeCostModel(name, Options());
  return model.status();
}

TEST(PythonModelTest, ModulesThatCannotLoadSaySo) {
  absl::Status s = MakeError("py:no_such_package.no_such_module");
  EXPECT_THAT(s.message(), HasSubstr("cost model py:no_such_package.no_such_module"));
  EXPECT_THAT(s.message(), HasSubstr("No module named 'no_such_package'"));
  s = MakeError("py:costmodels/python/testing/missing.py");
  EXPECT_THAT(s.message(), HasSubstr("no file costmodels/python/testing/missing.py"));
  s = MakeError("py:costmodels/python/testing/no_model_class.py");
  EXPECT_THAT(s.message(), HasSubstr("defines no class Model"));
  setenv("TESSEL_BROKEN_MODEL", "bad_init", 1);
  s = MakeError(kBroken);
  EXPECT_THAT(s.message(), HasSubstr("RuntimeError: no model today"));
  setenv("TESSEL_PYTHON", "/nonexistent/python3", 1);
  s = MakeError(kNearest);
  unsetenv("TESSEL_PYTHON");
  EXPECT_THAT(s.message(), HasSubstr("cannot start /nonexistent/python3"));
}

TEST(PythonModelTest, ModelsThatFailSaySo) {
  const search::ConfigSpace space = SyntheticSpace();
  const std::vector<search::Config> some = {*space.Get(1), *space.Get(2)};
  setenv("TESSEL_BROKEN_MODEL", "raises", 1);
  std::unique_ptr<CostModel> model = Make(kBroken);
  ASSERT_NE(model, nullptr);
  absl::Status s = model->Fit(TrainingSamples(space));
  EXPECT_THAT(s.message(), HasSubstr("ValueError: this model cannot fit"));
  // The process serves on after an exception.
  EXPECT_TRUE(model->Predict(SyntheticTask(), some).ok());
  EXPECT_THAT(model->FitTransfer(TrainingSamples(space)).message(), HasSubstr("no fit_transfer"));

  setenv("TESSEL_BROKEN_MODEL", "wrong_count", 1);
  model = Make(kBroken);
  ASSERT_NE(model, nullptr);
  EXPECT_THAT(model->Predict(SyntheticTask(), some).status().message(),
              HasSubstr("predict returned 3 scores for 2 rows"));

  setenv("TESSEL_BROKEN_MODEL", "dies", 1);
  model = Make(kBroken);
  ASSERT_NE(model, nullptr);
  s = model->Predict(SyntheticTask(), some).status();
  EXPECT_THAT(s.message(), HasSubstr("the Python process exited with status 3"));
  unsetenv("TESSEL_BROKEN_MODEL");
}

}  // namespace
}  // namespace tessel::costmodels
