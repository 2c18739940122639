#include "search/explorers/sa_explorer.h"

#include <absl/container/flat_hash_set.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "search/explorers/test_space.h"

namespace tessel::search {
namespace {

using testing::IsOptimum;
using testing::MakeTestSpace;
using testing::Objective;

// The objective as a ScoreFn that counts its calls and the configs it scored.
struct CountingScore {
  int calls = 0;
  int64_t configs = 0;
  size_t largest_batch = 0;
  ScoreFn fn() {
    return [this](const std::vector<Config>& batch) {
      ++calls;
      configs += static_cast<int64_t>(batch.size());
      largest_batch = std::max(largest_batch, batch.size());
      std::vector<double> out;
      for (const Config& c : batch) out.push_back(Objective(c));
      return out;
    };
  }
};

std::vector<int64_t> Indices(const std::vector<Config>& configs) {
  std::vector<int64_t> out;
  for (const Config& c : configs) out.push_back(c.index());
  return out;
}

TEST(SaExplorer, FindsTheOptimumFirstWithTheTrueObjective) {
  // Early stopping (50 iterations without a better list) can end a call while the chains still
  // roam at a high temperature: then the optimum comes first in the next call, as the chains
  // persist (the tuner's next plan). Measured: first call 38 of 40 seeds, second call the rest.
  const ConfigSpace space = MakeTestSpace();
  constexpr int kSeeds = 20;
  int first_call = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    auto sa = MakeSaExplorer(space, SaParams{}, seed);
    EXPECT_TRUE(sa->model_guided());
    CountingScore counter;
    const ScoreFn score = counter.fn();
    const std::vector<Config> proposed = sa->Propose(64, {}, &score);
    ASSERT_EQ(proposed.size(), 64u);
    // Best first.
    for (size_t i = 1; i < proposed.size(); ++i) {
      EXPECT_GE(Objective(proposed[i - 1]), Objective(proposed[i])) << "position " << i;
    }
    // One ScoreFn call scores every chain.
    EXPECT_EQ(counter.largest_batch, 128u);
    EXPECT_EQ(counter.configs, 128 * counter.calls);
    if (IsOptimum(proposed[0])) {
      ++first_call;
      continue;
    }
    absl::flat_hash_set<int64_t> visited;
    for (const Config& c : proposed) visited.insert(c.index());
    const std::vector<Config> next = sa->Propose(64, visited, &score);
    ASSERT_FALSE(next.empty());
    EXPECT_TRUE(IsOptimum(next[0])) << "seed " << seed << ": " << next[0].ToString();
  }
  EXPECT_GE(first_call, kSeeds - 2);
}

TEST(SaExplorer, NeverReturnsVisitedOrInvalidOrRepeatedPoints) {
  const ConfigSpace space = MakeTestSpace();
  auto sa = MakeSaExplorer(space, SaParams{}, 7);
  CountingScore counter;
  const ScoreFn score = counter.fn();
  absl::flat_hash_set<int64_t> visited;
  bool optimum_seen = false;
  for (int round = 0; round < 5; ++round) {
    const std::vector<Config> proposed = sa->Propose(64, visited, &score);
    ASSERT_EQ(proposed.size(), 64u);
    absl::flat_hash_set<int64_t> seen;
    for (const Config& c : proposed) {
      EXPECT_FALSE(visited.contains(c.index())) << "round " << round << ": " << c.ToString();
      EXPECT_TRUE(seen.insert(c.index()).second) << "repeated " << c.ToString();
      EXPECT_TRUE(space.Validate(c).ok()) << c.ToString();
      optimum_seen |= IsOptimum(c);
    }
    for (const Config& c : proposed) visited.insert(c.index());
  }
  EXPECT_TRUE(optimum_seen);
}

TEST(SaExplorer, WithTheOptimumVisitedTheNextBestComeFirst) {
  const ConfigSpace space = MakeTestSpace();
  CountingScore counter;
  const ScoreFn score = counter.fn();
  absl::StatusOr<Config> optimum = space.FromValueIndices(testing::kOptimum);
  ASSERT_TRUE(optimum.ok());
  const double ring = Objective(*optimum) * std::exp(-0.4);  // one knob one value off
  // With the defaults the walk may stop early (50 iterations without a better list) before it
  // has seen all of the optimum's 8 neighbours, but it has found one of them.
  auto sa = MakeSaExplorer(space, SaParams{}, 3);
  std::vector<Config> proposed = sa->Propose(8, {optimum->index()}, &score);
  ASSERT_EQ(proposed.size(), 8u);
  EXPECT_DOUBLE_EQ(Objective(proposed[0]), ring) << proposed[0].ToString();
  // Annealed to the end, the chains settle on the optimum and propose every neighbour.
  auto patient = MakeSaExplorer(space, SaParams{.early_stop = 500}, 3);
  proposed = patient->Propose(8, {optimum->index()}, &score);
  ASSERT_EQ(proposed.size(), 8u);
  for (const Config& c : proposed) EXPECT_DOUBLE_EQ(Objective(c), ring) << c.ToString();
}

TEST(SaExplorer, SameSeedSameProposalsDifferentSeedDifferent) {
  const ConfigSpace space = MakeTestSpace();
  // A score with many ties and no structure makes the walk depend on every draw.
  const ScoreFn score = [](const std::vector<Config>& batch) {
    std::vector<double> out;
    for (const Config& c : batch) out.push_back(static_cast<double>((c.index() * 7919) % 101));
    return out;
  };
  auto run = [&](uint64_t seed) {
    auto sa = MakeSaExplorer(space, SaParams{}, seed);
    std::vector<int64_t> all;
    absl::flat_hash_set<int64_t> visited;
    for (int round = 0; round < 3; ++round) {
      for (int64_t i : Indices(sa->Propose(32, visited, &score))) {
        all.push_back(i);
        visited.insert(i);
      }
    }
    return all;
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

TEST(SaExplorer, FillsUpWithRandomPointsAndStopsAtTheSpace) {
  // A constant score: every chain point ties, the best list fills from the chains and the walk
  // stops early. Asking for more than the space holds returns every valid unvisited point.
  ConfigSpace space;
  space.define_knob("a", {1, 2, 3, 4});
  space.define_knob("b", {1, 2, 3});
  space.AddFilter("not_a0_b0", [](const Config& c) {
    return !(c.value_indices()[0] == 0 && c.value_indices()[1] == 0);
  });
  const ScoreFn zero = [](const std::vector<Config>& batch) {
    return std::vector<double>(batch.size(), 0.0);
  };
  auto sa = MakeSaExplorer(space, SaParams{.parallel_size = 4, .early_stop = 5}, 1);
  const std::vector<Config> proposed = sa->Propose(100, {5}, &zero);
  EXPECT_EQ(proposed.size(), 10u);  // 12 points, 1 filtered, 1 visited
  absl::flat_hash_set<int64_t> seen;
  for (const Config& c : proposed) {
    EXPECT_NE(c.index(), 5);
    EXPECT_NE(c.index(), 0);  // filtered out
    EXPECT_TRUE(seen.insert(c.index()).second);
  }
}

TEST(SaExplorer, StopsEarlyWhenTheBestListDoesNotChange) {
  // A constant score: the chains' 128 starting points fill the list of 64 and ties never displace
  // a member, so the walk stops after early_stop iterations.
  const ConfigSpace space = MakeTestSpace();
  int calls = 0;
  const ScoreFn zero = [&](const std::vector<Config>& batch) {
    ++calls;
    return std::vector<double>(batch.size(), 0.0);
  };
  auto sa = MakeSaExplorer(space, SaParams{.early_stop = 20}, 1);
  EXPECT_EQ(sa->Propose(64, {}, &zero).size(), 64u);
  EXPECT_EQ(calls, 1 + 20);
}

TEST(SaExplorer, ChainsPersistBetweenCalls) {
  // With n_iter = 0 a call only rescores the chains: the second call proposes the same chain
  // points (minus those now visited), so the chains were neither lost nor restarted.
  const ConfigSpace space = MakeTestSpace();
  auto sa = MakeSaExplorer(space, SaParams{.parallel_size = 16, .n_iter = 0}, 5);
  CountingScore counter;
  const ScoreFn score = counter.fn();
  const std::vector<Config> first = sa->Propose(16, {}, &score);
  const std::vector<Config> second = sa->Propose(16, {first[0].index()}, &score);
  absl::flat_hash_set<int64_t> first_set;
  for (const Config& c : first) first_set.insert(c.index());
  int shared = 0;
  for (const Config& c : second) shared += first_set.contains(c.index());
  EXPECT_EQ(shared, 15);
  EXPECT_EQ(counter.calls, 2);
}

TEST(SaExplorer, ParamsAreReadByFieldName) {
  absl::StatusOr<SaParams> p = ParseSaParams({{"parallel_size", 8}, {"temperature_start", 2}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->parallel_size, 8);
  EXPECT_EQ(p->n_iter, 500);
  EXPECT_EQ(p->early_stop, 50);
  EXPECT_DOUBLE_EQ(p->temperature_start, 2.0);
  EXPECT_DOUBLE_EQ(p->temperature_end, 0.0);
}

// Not a check: the cost of one default Propose(64), for the record.
TEST(SaExplorer, CostOfOnePropose) {
  const ConfigSpace space = MakeTestSpace();
  struct Case {
    const char* name;
    ScoreFn score;
  };
  int calls = 0;
  int64_t configs = 0;
  auto wrap = [&](std::function<double(const Config&)> f) -> ScoreFn {
    return [&calls, &configs, f](const std::vector<Config>& batch) {
      ++calls;
      configs += static_cast<int64_t>(batch.size());
      std::vector<double> out;
      for (const Config& c : batch) out.push_back(f(c));
      return out;
    };
  };
  const std::vector<Case> cases = {
      {"constant", wrap([](const Config&) { return 0.0; })},
      {"objective", wrap(Objective)},
      {"hash of index", wrap([](const Config& c) {
         return static_cast<double>((static_cast<uint64_t>(c.index()) * 0x9E3779B97F4A7C15ull) >>
                                    11);
       })},
  };
  for (const Case& c : cases) {
    calls = 0;
    configs = 0;
    auto sa = MakeSaExplorer(space, SaParams{}, 0);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Config> proposed = sa->Propose(64, {}, &c.score);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(proposed.size(), 64u);
    EXPECT_LE(calls, 501);
    std::printf("sa Propose(64), score %s: %d ScoreFn calls, %lld configs scored, %.1f ms\n",
                c.name, calls, static_cast<long long>(configs), ms);
  }
}

}  // namespace
}  // namespace tessel::search
