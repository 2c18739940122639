// The two enumerating explorers: every valid point exactly once, visited points skipped, then
// nothing.

#include <absl/container/flat_hash_set.h>
#include <gtest/gtest.h>

#include "search/explorers/grid_explorer.h"
#include "search/explorers/random_explorer.h"
#include "search/explorers/test_space.h"

namespace tessel::search {
namespace {

using testing::MakeTestSpace;

// Calls Propose(batch) until it returns nothing, marking each batch visited; `visited` starts with
// the given points. Checks that no proposal was visited, repeated or invalid; returns them in
// order.
std::vector<int64_t> Drain(Explorer& explorer, int batch, absl::flat_hash_set<int64_t> visited) {
  std::vector<int64_t> order;
  for (int calls = 0; calls < 100000; ++calls) {
    const std::vector<Config> proposed = explorer.Propose(batch, visited, nullptr);
    if (proposed.empty()) break;
    EXPECT_LE(proposed.size(), static_cast<size_t>(batch));
    for (const Config& c : proposed) {
      EXPECT_TRUE(visited.insert(c.index()).second) << "visited or repeated: " << c.ToString();
      EXPECT_TRUE(testing::Valid(c)) << c.ToString();
      order.push_back(c.index());
    }
  }
  return order;
}

// The valid points of the test space not in `visited`, by index.
std::vector<int64_t> ValidIndices(const ConfigSpace& space,
                                  const absl::flat_hash_set<int64_t>& visited) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < space.size(); ++i) {
    if (!visited.contains(i) && testing::Valid(*space.Get(i))) out.push_back(i);
  }
  return out;
}

const absl::flat_hash_set<int64_t> kVisited = {0, 1, 5, 100, 20735};

TEST(RandomExplorer, EnumeratesEveryUnvisitedValidPointOnce) {
  const ConfigSpace space = MakeTestSpace();
  auto random = MakeRandomExplorer(space, 1);
  EXPECT_FALSE(random->model_guided());
  std::vector<int64_t> order = Drain(*random, 500, kVisited);
  const std::vector<int64_t> sorted_order = [&] {
    std::vector<int64_t> s = order;
    std::sort(s.begin(), s.end());
    return s;
  }();
  EXPECT_EQ(sorted_order, ValidIndices(space, kVisited));
  EXPECT_NE(order, sorted_order);  // drawn in a random order
  // Every valid point was proposed or visited; those proposed are not proposed again.
  EXPECT_TRUE(random->Propose(1, kVisited, nullptr).empty());
}

TEST(RandomExplorer, SameSeedSameProposalsDifferentSeedDifferent) {
  const ConfigSpace space = MakeTestSpace();
  auto first = [&](uint64_t seed) {
    auto random = MakeRandomExplorer(space, seed);
    std::vector<int64_t> out;
    for (int round = 0; round < 3; ++round) {
      for (const Config& c : random->Propose(50, kVisited, nullptr)) out.push_back(c.index());
    }
    return out;
  };
  EXPECT_EQ(first(3), first(3));
  EXPECT_NE(first(3), first(4));
}

TEST(RandomExplorer, NeverRepeatsAProposalEvenIfNotMarkedVisited) {
  const ConfigSpace space = MakeTestSpace();
  auto random = MakeRandomExplorer(space, 2);
  absl::flat_hash_set<int64_t> seen;
  for (int round = 0; round < 10; ++round) {
    for (const Config& c : random->Propose(100, {}, nullptr)) {
      EXPECT_TRUE(seen.insert(c.index()).second) << c.ToString();
    }
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(GridExplorer, EnumeratesInIndexOrder) {
  const ConfigSpace space = MakeTestSpace();
  auto grid = MakeGridExplorer(space);
  EXPECT_FALSE(grid->model_guided());
  EXPECT_EQ(Drain(*grid, 777, kVisited), ValidIndices(space, kVisited));
  EXPECT_TRUE(grid->Propose(1, {}, nullptr).empty());
}

TEST(GridExplorer, SkipsPointsVisitedBetweenCalls) {
  const ConfigSpace space = MakeTestSpace();
  auto grid = MakeGridExplorer(space);
  // Index 0 (knobs 0 and 1 equal) is filtered out.
  std::vector<int64_t> got;
  for (const Config& c : grid->Propose(3, {}, nullptr)) got.push_back(c.index());
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3}));
  got.clear();
  for (const Config& c : grid->Propose(3, {4, 6}, nullptr)) got.push_back(c.index());
  EXPECT_EQ(got, (std::vector<int64_t>{5, 7, 8}));
}

}  // namespace
}  // namespace tessel::search
