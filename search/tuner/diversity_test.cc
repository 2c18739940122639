#include "search/tuner/diversity.h"

#include <gtest/gtest.h>

namespace tessel::search {
namespace {

ConfigSpace TwoKnobs() {
  ConfigSpace space;
  space.define_knob("a", {0, 1, 2, 3});
  space.define_knob("b", {0, 1, 2, 3});
  return space;
}

TEST(DiversePickTest, ZeroWeightIsTopKByScore) {
  ConfigSpace space = TwoKnobs();
  std::vector<Config> candidates = {*space.Get(0), *space.Get(1), *space.Get(2), *space.Get(3)};
  std::vector<Config> picked = DiversePick(candidates, {0.1, 0.9, 0.5, 0.3}, 2, 0.0);
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0].index(), 1);
  EXPECT_EQ(picked[1].index(), 2);
}

TEST(DiversePickTest, WeightPrefersUncoveredValues) {
  ConfigSpace space = TwoKnobs();
  // Index = a + 4 b. The two best share b = 0 and differ only in a; the third best differs in both.
  std::vector<Config> candidates = {*space.Get(0), *space.Get(1), *space.Get(2 + 4 * 3)};
  std::vector<Config> picked = DiversePick(candidates, {1.0, 0.95, 0.9}, 2, 0.6);
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0].index(), 0);
  EXPECT_EQ(picked[1].index(), 14);
}

TEST(DiversePickTest, KAtLeastCandidatesReturnsAll) {
  ConfigSpace space = TwoKnobs();
  std::vector<Config> candidates = {*space.Get(5), *space.Get(6)};
  EXPECT_EQ(DiversePick(candidates, {0.0, 1.0}, 5, 1.0).size(), 2u);
}

}  // namespace
}  // namespace tessel::search
