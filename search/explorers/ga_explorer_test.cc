#include "search/explorers/ga_explorer.h"

#include <absl/container/flat_hash_set.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "search/explorers/random_explorer.h"
#include "search/explorers/test_space.h"

namespace tessel::search {
namespace {

using testing::IsOptimum;
using testing::MakeTestSpace;
using testing::Objective;

constexpr int kBatch = 16;

// What the tuner does with a black-box explorer: propose a batch, measure it (the objective),
// mark it visited, observe the fitness. Returns the trials spent until the optimum was measured,
// or budget + 1 when it was not.
int TrialsToOptimum(Explorer& explorer, int budget) {
  absl::flat_hash_set<int64_t> visited;
  int trials = 0;
  while (trials < budget) {
    const std::vector<Config> batch =
        explorer.Propose(std::min(kBatch, budget - trials), visited, nullptr);
    if (batch.empty()) break;
    std::vector<double> fitness;
    for (const Config& c : batch) {
      ++trials;
      if (IsOptimum(c)) return trials;
      fitness.push_back(Objective(c));
      visited.insert(c.index());
    }
    explorer.Observe(batch, fitness);
  }
  return budget + 1;
}

TEST(GaExplorer, FindsTheOptimumWellWithinTheSpace) {
  const ConfigSpace space = MakeTestSpace();
  constexpr int kBudget = 2000;  // under a tenth of the 19008 valid points
  for (uint64_t seed = 0; seed < 5; ++seed) {
    auto ga = MakeGaExplorer(space, GaParams{}, seed);
    EXPECT_FALSE(ga->model_guided());
    const int trials = TrialsToOptimum(*ga, kBudget);
    EXPECT_LE(trials, kBudget) << "seed " << seed;
  }
}

TEST(GaExplorer, BeatsRandomOnAverage) {
  const ConfigSpace space = MakeTestSpace();
  constexpr int kSeeds = 8;
  constexpr int kBudget = static_cast<int>(testing::kValidPoints);
  double ga_total = 0, random_total = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    auto ga = MakeGaExplorer(space, GaParams{}, seed);
    auto random = MakeRandomExplorer(space, seed);
    ga_total += TrialsToOptimum(*ga, kBudget);
    random_total += TrialsToOptimum(*random, kBudget);
  }
  std::printf("trials to the optimum, mean over %d seeds: ga %.0f, random %.0f\n", kSeeds,
              ga_total / kSeeds, random_total / kSeeds);
  EXPECT_LT(ga_total, random_total / 4);
}

// Runs the tuner's loop for `trials` and returns the proposed indices in order, checking on the
// way that no proposal was visited, repeated, or invalid.
std::vector<int64_t> TuneOrder(const ConfigSpace& space, uint64_t seed, int trials) {
  auto ga = MakeGaExplorer(space, GaParams{}, seed);
  absl::flat_hash_set<int64_t> visited;
  std::vector<int64_t> order;
  while (static_cast<int>(order.size()) < trials) {
    const std::vector<Config> batch = ga->Propose(kBatch, visited, nullptr);
    EXPECT_EQ(batch.size(), static_cast<size_t>(kBatch));
    if (batch.empty()) break;
    std::vector<double> fitness;
    for (const Config& c : batch) {
      EXPECT_TRUE(visited.insert(c.index()).second) << "visited or repeated: " << c.ToString();
      EXPECT_TRUE(testing::Valid(c)) << c.ToString();
      order.push_back(c.index());
      fitness.push_back(Objective(c));
    }
    ga->Observe(batch, fitness);
  }
  return order;
}

TEST(GaExplorer, SameSeedSameProposalsDifferentSeedDifferent) {
  const ConfigSpace space = MakeTestSpace();
  const std::vector<int64_t> a = TuneOrder(space, 4, 600);
  EXPECT_EQ(a, TuneOrder(space, 4, 600));
  EXPECT_NE(a, TuneOrder(space, 5, 600));
}

TEST(GaExplorer, SkipsPointsVisitedAfterTheGenerationWasBred) {
  const ConfigSpace space = MakeTestSpace();
  auto ga = MakeGaExplorer(space, GaParams{.pop_size = 10}, 2);
  const std::vector<Config> first = ga->Propose(5, {}, nullptr);
  ASSERT_EQ(first.size(), 5u);
  // Someone else measured part of the rest of the generation: peek at it with a twin explorer.
  auto twin = MakeGaExplorer(space, GaParams{.pop_size = 10}, 2);
  const std::vector<Config> generation = twin->Propose(10, {}, nullptr);
  ASSERT_EQ(generation.size(), 10u);
  absl::flat_hash_set<int64_t> visited;
  for (const Config& c : first) visited.insert(c.index());
  visited.insert(generation[6].index());
  visited.insert(generation[8].index());
  const std::vector<Config> rest = ga->Propose(3, visited, nullptr);
  ASSERT_EQ(rest.size(), 3u);
  EXPECT_EQ(rest[0].index(), generation[5].index());
  EXPECT_EQ(rest[1].index(), generation[7].index());
  EXPECT_EQ(rest[2].index(), generation[9].index());
}

TEST(GaExplorer, BreedsWithoutFitnessAndAcrossGenerationsInOneCall) {
  // Nothing observed: parents are drawn uniformly. One call spans three generations.
  const ConfigSpace space = MakeTestSpace();
  auto ga = MakeGaExplorer(space, GaParams{}, 9);
  const std::vector<Config> proposed = ga->Propose(250, {}, nullptr);
  ASSERT_EQ(proposed.size(), 250u);
  absl::flat_hash_set<int64_t> seen;
  for (const Config& c : proposed) {
    EXPECT_TRUE(seen.insert(c.index()).second) << c.ToString();
    EXPECT_TRUE(testing::Valid(c)) << c.ToString();
  }
}

TEST(GaExplorer, ExhaustsASmallSpaceExactlyOnce) {
  ConfigSpace space;
  space.define_knob("a", {1, 2, 3, 4});
  space.define_knob("b", {1, 2, 3});
  space.AddFilter("not_a0_b0", [](const Config& c) {
    return !(c.value_indices()[0] == 0 && c.value_indices()[1] == 0);
  });
  auto ga = MakeGaExplorer(space, GaParams{.pop_size = 4, .elite_num = 1}, 3);
  absl::flat_hash_set<int64_t> visited = {7};
  for (int round = 0; round < 20; ++round) {
    const std::vector<Config> batch = ga->Propose(3, visited, nullptr);
    std::vector<double> fitness;
    for (const Config& c : batch) {
      EXPECT_NE(c.index(), 0) << "filtered out";
      EXPECT_TRUE(visited.insert(c.index()).second) << c.ToString();
      fitness.push_back(static_cast<double>(c.index()));
    }
    ga->Observe(batch, fitness);
  }
  EXPECT_EQ(visited.size(), 11u);  // 12 points, 1 filtered
  EXPECT_TRUE(ga->Propose(3, visited, nullptr).empty());
}

TEST(GaExplorer, ParamsAreReadByFieldName) {
  absl::StatusOr<GaParams> p = ParseGaParams({{"pop_size", 20}, {"mutation_prob", 0.25}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->pop_size, 20);
  EXPECT_EQ(p->elite_num, 3);
  EXPECT_DOUBLE_EQ(p->mutation_prob, 0.25);
  absl::StatusOr<GaParams> bad = ParseGaParams({{"pop_size", 2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'elite_num'"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace tessel::search
