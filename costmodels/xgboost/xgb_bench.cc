// Times the xgb model at tuning sizes: Fit on 500 samples and Predict on 10000 candidates, with
// rows of 400 floats (the size of itervar rows of a conv2d). Features come from a synthetic
// extractor, so only the model is timed.
//
//   bazel run --config=opt //costmodels/xgboost:xgb_bench -- [threads]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "compiler/support/check.h"
#include "costmodels/features/feature_extractor.h"
#include "costmodels/testing/synthetic.h"
#include "costmodels/xgboost/xgb_model.h"

namespace tessel::costmodels {
namespace {

constexpr int kWidth = 400;

// Rows of kWidth floats, functions of the config as loop features are: the value indices, then
// a third of the columns small integer mixes of them and the rest hashed values in [0, 20)
// (features that vary between configs but say nothing about speed).
class WideExtractor : public FeatureExtractor {
 public:
  absl::StatusOr<std::vector<float>> Flat(const search::Task&,
                                          const search::Config& config) override {
    const std::vector<int64_t>& v = config.value_indices();
    const int n = static_cast<int>(v.size());
    std::vector<float> row(kWidth);
    for (int j = 0; j < kWidth; ++j) {
      if (j < n) {
        row[j] = static_cast<float>(v[j]);
      } else if (j % 3 == 0) {
        row[j] = static_cast<float>(v[j % n] * (j / n + 1) % 17);
      } else {
        uint64_t h = static_cast<uint64_t>(config.index()) * 0x9e3779b97f4a7c15ULL + j;
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 29;
        row[j] = static_cast<float>(h % 2000) / 100.0f;
      }
    }
    return row;
  }
  absl::StatusOr<LoopTree> Tree(const search::Task&, const search::Config&) override {
    return LoopTree{};
  }
};

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int Main(int argc, char** argv) {
  CostModelOptions options;
  options.threads = argc > 1 ? std::atoi(argv[1]) : 1;
  options.features = std::make_shared<WideExtractor>();
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeXgbModel(options);
  TESSEL_CHECK(model.ok()) << model.status();

  const search::ConfigSpace space = testing::SyntheticSpace(4, 10);  // 10000 points
  const search::Task task = testing::SyntheticTask();
  std::mt19937_64 rng(1);
  const std::vector<Sample> samples =
      testing::RandomSamples(task, space, 500, {3, 7, 5, 1}, 100, rng);
  const std::vector<search::Config> candidates = testing::AllConfigs(space);

  auto start = std::chrono::steady_clock::now();
  TESSEL_CHECK((*model)->Fit(samples).ok());
  const double fit = Seconds(start);
  start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<double>> scores = (*model)->Predict(task, candidates);
  TESSEL_CHECK(scores.ok()) << scores.status();
  const double predict = Seconds(start);
  std::printf(
      "xgb, %d thread(s), rows of %d floats: fit on %zu samples %.3f s, predict %zu "
      "candidates %.3f s\n",
      options.threads, kWidth, samples.size(), fit, candidates.size(), predict);
  return 0;
}

}  // namespace
}  // namespace tessel::costmodels

int main(int argc, char** argv) { return tessel::costmodels::Main(argc, argv); }
