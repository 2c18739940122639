// The treernn model on the loop trees of a real template's programs (conv2d_nchwc.x86 on
// ResNet-18's C6), from the program feature extractor: trees of real shapes train and score,
// reproducibly. The "throughput" is a stand-in (no measurement here): a smooth function of the
// config's value indices, which the loop extents and annotations in the trees reveal.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "compiler/support/check.h"
#include "compiler/target/target_facts.h"
#include "costmodels/ranking.h"
#include "costmodels/testing/synthetic.h"
#include "costmodels/treernn/treernn.h"
#include "workloads/table2.h"

namespace tessel::costmodels::treernn {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST(TreeRnnProgramTest, TrainsAndScoresRealLoopTrees) {
  target::TargetFacts facts;
  facts.target = target::Target::Llvm();
  facts.vector_bits = 512;
  facts.cores = 2;
  const search::Task task{"conv2d_nchwc.x86", workloads::Conv2dArgs(*workloads::FindLayer("C6")),
                          target::Target::Llvm()};
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, facts);
  ASSERT_TRUE(space.ok()) << space.status();

  std::mt19937_64 rng(1);
  std::vector<search::Config> configs = space->SampleUnique(400, rng);
  ASSERT_EQ(configs.size(), 400u);
  std::vector<int64_t> optimum = configs[0].value_indices();
  auto throughput = [&](const search::Config& c) {
    return testing::SyntheticThroughput(c, optimum);
  };

  CostModelOptions options;
  options.features = MakeProgramFeatureExtractor(FeatureKind::kItervar, facts, /*threads=*/2);
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<LoopTree>> trees = options.features->TreeBatch(task, configs);
  ASSERT_TRUE(trees.ok()) << trees.status();
  size_t nodes = 0;
  for (const LoopTree& t : *trees) nodes += t.nodes.size();
  std::printf("%zu loop trees of %.1f nodes (rows of %zu) extracted in %.2f s\n", trees->size(),
              static_cast<double>(nodes) / trees->size(), (*trees)[0].nodes[0].features.size(),
              Seconds(start));

  std::vector<Sample> train;
  for (size_t i = 0; i < 200; ++i) train.push_back({task, configs[i], throughput(configs[i])});
  const std::vector<search::Config> held_out(configs.begin() + 200, configs.end());
  std::vector<double> truth;
  for (const search::Config& c : held_out) truth.push_back(throughput(c));

  absl::StatusOr<std::unique_ptr<CostModel>> a = MakeTreeRnnModel(options);
  absl::StatusOr<std::unique_ptr<CostModel>> b = MakeTreeRnnModel(options);
  ASSERT_TRUE(a.ok() && b.ok());
  start = std::chrono::steady_clock::now();
  ASSERT_TRUE((*a)->Fit(train).ok());
  std::printf("fit on %zu samples: %.2f s (features cached)\n", train.size(), Seconds(start));
  ASSERT_TRUE((*b)->Fit(train).ok());

  start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<double>> scores = (*a)->Predict(task, held_out);
  ASSERT_TRUE(scores.ok()) << scores.status();
  std::printf("predict %zu candidates: %.1f ms (features cached)\n", held_out.size(),
              1000 * Seconds(start));
  EXPECT_EQ(*scores, *(*b)->Predict(task, held_out));
  std::printf("held out: average recall@32 %.3f, recall@32 %.3f\n",
              AverageRecall(*scores, truth, 32), RecallAtK(*scores, truth, 32));
  EXPECT_GT(RecallAtK(*scores, truth, 32), 0.5);
}

}  // namespace
}  // namespace tessel::costmodels::treernn
