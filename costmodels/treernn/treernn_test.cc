// The treernn model on a synthetic space with a known throughput function: it ranks the unseen
// optimum near the top, is reproducible, round-trips through Save/Load, and its user errors name
// what went wrong.
#include "costmodels/treernn/treernn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>

#include "compiler/support/check.h"
#include "costmodels/ranking.h"
#include "costmodels/testing/fake_features.h"
#include "costmodels/testing/synthetic.h"

namespace tessel::costmodels::treernn {
namespace {

// Deeper loop trees than the fake extractor's, for timing: a root with a zero row over a chain of
// `depth` nodes, node j's row [value indices..., j / depth].
class DeepChainExtractor : public FeatureExtractor {
 public:
  explicit DeepChainExtractor(int depth) : depth_(depth) {}

  absl::StatusOr<std::vector<float>> Flat(const search::Task&,
                                          const search::Config& config) override {
    const std::vector<int64_t>& v = config.value_indices();
    return std::vector<float>(v.begin(), v.end());
  }

  absl::StatusOr<LoopTree> Tree(const search::Task&, const search::Config& config) override {
    const std::vector<int64_t>& v = config.value_indices();
    const size_t width = v.size() + 1;
    LoopTree tree;
    tree.nodes.push_back({.features = std::vector<float>(width, 0.0f), .children = {}});
    for (int j = 1; j <= depth_; ++j) {
      std::vector<float> row(v.begin(), v.end());
      row.push_back(static_cast<float>(j) / depth_);
      tree.nodes[j - 1].children.push_back(j);
      tree.nodes.push_back({.features = std::move(row), .children = {}});
    }
    return tree;
  }

  absl::StatusOr<std::vector<LoopTree>> TreeBatch(
      const search::Task& task, const std::vector<search::Config>& configs) override {
    std::vector<LoopTree> trees;
    for (const search::Config& config : configs) {
      absl::StatusOr<LoopTree> tree = Tree(task, config);
      if (!tree.ok()) return tree.status();
      trees.push_back(*std::move(tree));
    }
    return trees;
  }

  absl::StatusOr<std::vector<std::vector<float>>> FlatBatch(
      const search::Task& task, const std::vector<search::Config>& configs) override {
    std::vector<std::vector<float>> rows;
    for (const search::Config& config : configs) rows.push_back(*Flat(task, config));
    return rows;
  }

 private:
  int depth_;
};

using testing::FakeFeatureExtractor;

const std::vector<int64_t> kOptimum = {7, 2, 5};

const search::ConfigSpace& Space() {
  static const search::ConfigSpace space = testing::SyntheticSpace(3, 10);  // 1000 points
  return space;
}

const search::Task& TaskA() {
  static const search::Task task = testing::SyntheticTask("synthetic_a");
  return task;
}

std::vector<Sample> Samples(const search::Task& task, int n, uint64_t seed, double scale = 100) {
  std::mt19937_64 rng(seed);
  return testing::RandomSamples(task, Space(), n, kOptimum, scale, rng);
}

std::unique_ptr<CostModel> Model(uint64_t seed,
                                 std::shared_ptr<FeatureExtractor> features = nullptr) {
  CostModelOptions options;
  options.seed = seed;
  options.features =
      features != nullptr ? std::move(features) : std::make_shared<FakeFeatureExtractor>();
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeTreeRnnModel(options);
  TESSEL_CHECK(model.ok()) << model.status();
  return *std::move(model);
}

std::vector<double> PredictAll(CostModel& model, const search::Task& task = TaskA()) {
  absl::StatusOr<std::vector<double>> scores = model.Predict(task, testing::AllConfigs(Space()));
  TESSEL_CHECK(scores.ok()) << scores.status();
  return *std::move(scores);
}

std::vector<double> TrueThroughputs() {
  std::vector<double> out;
  for (const search::Config& c : testing::AllConfigs(Space())) {
    out.push_back(testing::SyntheticThroughput(c, kOptimum));
  }
  return out;
}

std::vector<double> Ranks(const std::vector<double>& x) {
  std::vector<int> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return x[a] < x[b]; });
  std::vector<double> rank(x.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && x[order[j]] == x[order[i]]) ++j;
    for (size_t k = i; k < j; ++k) rank[order[k]] = (i + j - 1) / 2.0;  // ties share the mean
    i = j;
  }
  return rank;
}

double Spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = Ranks(a), rb = Ranks(b);
  const double n = static_cast<double>(a.size()), mean = (n - 1) / 2;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return cov / std::sqrt(va * vb);
}

// Position of the true optimum in the predicted order (0 = predicted best).
int OptimumRank(const std::vector<double>& scores, const std::vector<double>& truth) {
  const int best = static_cast<int>(std::max_element(truth.begin(), truth.end()) - truth.begin());
  int rank = 0;
  for (size_t i = 0; i < scores.size(); ++i) rank += scores[i] > scores[best];
  return rank;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST(TreeRnnTest, RanksTheUnseenOptimumNearTheTop) {
  const std::vector<double> truth = TrueThroughputs();
  const int64_t optimum = std::max_element(truth.begin(), truth.end()) - truth.begin();
  std::vector<Sample> samples = Samples(TaskA(), 150, 1);
  for (const Sample& s : samples) ASSERT_NE(s.config.index(), optimum) << "pick another seed";

  std::unique_ptr<CostModel> model = Model(7);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(model->Fit(samples).ok());
  std::printf("fit on %zu samples: %.2f s\n", samples.size(), Seconds(start));
  const std::vector<double> scores = PredictAll(*model);

  const double spearman = Spearman(scores, truth);
  const double recall = RecallAtK(scores, truth, 32);
  const int rank = OptimumRank(scores, truth);
  std::printf("spearman %.3f, recall@32 %.3f, optimum ranked %d of %zu\n", spearman, recall, rank,
              scores.size());
  EXPECT_LT(rank, 5);
  EXPECT_GT(spearman, 0.95);
  EXPECT_GE(recall, 0.6);
}

TEST(TreeRnnTest, PredictBeforeFitIsZero) {
  std::unique_ptr<CostModel> model = Model(0);
  EXPECT_EQ(model->name(), "treernn");
  for (double s : PredictAll(*model)) ASSERT_EQ(s, 0.0);
}

TEST(TreeRnnTest, SameSeedSamePredictions) {
  const std::vector<Sample> samples = Samples(TaskA(), 80, 2);
  std::unique_ptr<CostModel> a = Model(3), b = Model(3), c = Model(4);
  ASSERT_TRUE(a->Fit(samples).ok());
  ASSERT_TRUE(b->Fit(samples).ok());
  ASSERT_TRUE(c->Fit(samples).ok());
  const std::vector<double> pa = PredictAll(*a);
  EXPECT_EQ(pa, PredictAll(*b));
  EXPECT_NE(pa, PredictAll(*c));
  // Two torch threads: reproducible too, for that thread count.
  std::vector<std::vector<double>> two_threads;
  for (int i = 0; i < 2; ++i) {
    CostModelOptions options;
    options.seed = 3;
    options.threads = 2;
    options.features = std::make_shared<FakeFeatureExtractor>();
    std::unique_ptr<CostModel> model = *MakeTreeRnnModel(options);
    ASSERT_TRUE(model->Fit(samples).ok());
    two_threads.push_back(PredictAll(*model));
  }
  EXPECT_EQ(two_threads[0], two_threads[1]);
  // A second Fit replaces the first: fitting again on the same samples gives the same model.
  ASSERT_TRUE(a->Fit(Samples(TaskA(), 40, 9)).ok());
  ASSERT_TRUE(a->Fit(samples).ok());
  EXPECT_EQ(pa, PredictAll(*a));
}

TEST(TreeRnnTest, NothingToRankLearnsNothing) {
  std::vector<Sample> samples = Samples(TaskA(), 30, 3);
  for (Sample& s : samples) s.throughput = 5;
  std::unique_ptr<CostModel> model = Model(0);
  ASSERT_TRUE(model->Fit(samples).ok());
  for (double s : PredictAll(*model)) ASSERT_EQ(s, 0.0);
  ASSERT_TRUE(model->Fit({}).ok());
  for (double s : PredictAll(*model)) ASSERT_EQ(s, 0.0);
}

class TreeRnnFileTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) {
    return (std::filesystem::path(::testing::TempDir()) / name).string();
  }
};

TEST_F(TreeRnnFileTest, SaveLoadGivesIdenticalPredictions) {
  std::unique_ptr<CostModel> model = Model(5);
  ASSERT_TRUE(model->FitTransfer(Samples(TaskA(), 60, 4)).ok());
  ASSERT_TRUE(model->Fit(Samples(TaskA(), 60, 5)).ok());
  const std::string path = Path("model.pt");
  ASSERT_TRUE(model->Save(path).ok());

  std::unique_ptr<CostModel> loaded = Model(99);
  absl::Status status = loaded->Load(path);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(PredictAll(*model), PredictAll(*loaded));
  // The prior came along: the next Fit starts from it on both.
  const std::vector<Sample> more = Samples(TaskA(), 30, 6);
  ASSERT_TRUE(model->Fit(more).ok());
  std::unique_ptr<CostModel> same_seed = Model(5);
  ASSERT_TRUE(same_seed->Load(path).ok());
  ASSERT_TRUE(same_seed->Fit(more).ok());
  EXPECT_EQ(PredictAll(*model), PredictAll(*same_seed));

  // An untrained model saves and loads as untrained.
  ASSERT_TRUE(Model(0)->Save(Path("empty.pt")).ok());
  ASSERT_TRUE(loaded->Load(Path("empty.pt")).ok());
  for (double s : PredictAll(*loaded)) ASSERT_EQ(s, 0.0);
}

TEST_F(TreeRnnFileTest, FileErrorsNameThePath) {
  std::unique_ptr<CostModel> model = Model(0);
  const std::string missing = Path("no_such_model.pt");
  absl::Status status = model->Load(missing);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find(missing), std::string::npos) << status;

  const std::string corrupt = Path("corrupt.pt");
  std::ofstream(corrupt) << "this is not a torch archive";
  status = model->Load(corrupt);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(corrupt), std::string::npos) << status;
  EXPECT_EQ(status.message().find('\n'), std::string::npos) << "one line: " << status;

  // A model of other features (rows of 4, not the fake extractor's 2) loads but cannot score.
  std::unique_ptr<CostModel> deep = Model(0, std::make_shared<DeepChainExtractor>(3));
  ASSERT_TRUE(deep->Fit(Samples(TaskA(), 20, 1)).ok());
  const std::string other = Path("other_features.pt");
  ASSERT_TRUE(deep->Save(other).ok());
  ASSERT_TRUE(model->Load(other).ok());
  absl::StatusOr<std::vector<double>> scores = model->Predict(TaskA(), {*Space().Get(0)});
  EXPECT_EQ(scores.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(scores.status().message().find("rows of 2 features; the model has 4"),
            std::string::npos)
      << scores.status();

  const std::string unwritable = Path("no_such_dir/model.pt");
  status = model->Save(unwritable);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(unwritable), std::string::npos) << status;
}

TEST(TreeRnnTest, TransferPriorScoresBeforeFitAndIsFineTuned) {
  const search::Task task_b{
      .template_name = "synthetic", .args = {{"n", 2}}, .target = target::Target::Llvm()};
  std::unique_ptr<CostModel> model = Model(11);
  ASSERT_TRUE(model->FitTransfer(Samples(task_b, 150, 7, 3.0)).ok());
  const std::vector<double> truth = TrueThroughputs();
  const std::vector<double> prior = PredictAll(*model);
  std::printf("prior on the new task: spearman %.3f\n", Spearman(prior, truth));
  EXPECT_GT(Spearman(prior, truth), 0.8);

  ASSERT_TRUE(model->Fit(Samples(TaskA(), 20, 8)).ok());
  const std::vector<double> tuned = PredictAll(*model);
  EXPECT_NE(tuned, prior);
  std::printf("fine-tuned on 20 samples: spearman %.3f\n", Spearman(tuned, truth));
  EXPECT_GT(Spearman(tuned, truth), 0.8);
}

TEST(TreeRnnTest, ConfigsWithoutProgramsRankLast) {
  std::unique_ptr<CostModel> model =
      Model(0, std::make_shared<FakeFeatureExtractor>(std::set<int64_t>{3, 700}));
  // Samples that cannot be lowered are skipped in training.
  ASSERT_TRUE(model->Fit(Samples(TaskA(), 100, 9)).ok());
  const std::vector<double> scores = PredictAll(*model);
  const double lowest = *std::min_element(scores.begin(), scores.end());
  EXPECT_EQ(scores[3], lowest);
  EXPECT_EQ(scores[700], lowest);
  EXPECT_EQ(std::count(scores.begin(), scores.end(), lowest), 2);
}

TEST(TreeRnnTest, BadOptionsNameTheField) {
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeTreeRnnModel(CostModelOptions{});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("options.features"), std::string::npos) << model.status();

  CostModelOptions options;
  options.features = std::make_shared<FakeFeatureExtractor>();
  model = MakeTreeRnnModel(options, TreeRnnParams{.batch_trees = 1});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("batch_trees"), std::string::npos) << model.status();
}

TEST(TreeRnnTest, RegisteredAsTreernn) {
  CostModelOptions options;
  options.features = std::make_shared<FakeFeatureExtractor>();
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeCostModel("treernn", options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->name(), "treernn");
}

// Not a check of speed (shared machines vary), a report of it: fit on 500 samples and scoring of
// 1000 candidates, with loop trees of about 50 nodes.
TEST(TreeRnnTest, ReportsSpeedWithFiftyNodeTrees) {
  std::unique_ptr<CostModel> model = Model(1, std::make_shared<DeepChainExtractor>(49));
  const std::vector<Sample> samples = Samples(TaskA(), 500, 10);
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(model->Fit(samples).ok());
  const double fit = Seconds(start);
  std::vector<search::Config> configs = testing::AllConfigs(Space());
  configs.resize(1000);
  PredictAll(*model);  // warm-up
  start = std::chrono::steady_clock::now();
  ASSERT_TRUE(model->Predict(TaskA(), configs).ok());
  const double predict = Seconds(start);
  std::printf("50-node trees: fit on 500 samples %.2f s, predict %.1f ms per 1000 candidates\n",
              fit, 1000 * predict);
}

}  // namespace
}  // namespace tessel::costmodels::treernn
