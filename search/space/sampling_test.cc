// Random points: SampleUnique and Neighbour, and the draws under them.

#include <absl/container/flat_hash_set.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

#include "search/space/config_space.h"
#include "search/space/config_space_impl.h"
#include "search/space/draws.h"

namespace tessel::search {
namespace {

// 6 * 6 * 2 * 3 = 216 points; "even_unroll" keeps those whose unroll_kw value is 0 or 4.
ConfigSpace SmallSpace(bool filtered) {
  ConfigSpace space;
  space.define_split("tile_ic", 64, {.policy = SplitPolicy::kPowerOfTwo, .max_innermost = 32});
  space.define_reorder("re", 3);
  space.define_annotate("ann", 2, {.allowed = {Annotation::kUnroll, Annotation::kVectorize}});
  space.define_knob("unroll_kw", {0, 1, 4});
  if (filtered) {
    space.AddFilter("even_unroll", [](const Config& c) { return c.knob("unroll_kw") % 2 == 0; });
  }
  return space;
}

// 1820^2 * 5040 * 18 * 4, about 1.2e12 points.
ConfigSpace BigSpace() {
  ConfigSpace space;
  space.define_split("tile_x", 3 * 4096, {.num_outputs = 4});
  space.define_split("tile_y", 3 * 4096, {.num_outputs = 4});
  space.define_reorder("re", 7);
  space.define_annotate("ann", 3,
                        {.allowed = {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize,
                                     Annotation::kParallel}});
  space.define_knob("unroll", {0, 16, 64, 512});
  return space;
}

std::vector<int64_t> Indices(const std::vector<Config>& configs) {
  std::vector<int64_t> out;
  for (const Config& c : configs) out.push_back(c.index());
  return out;
}

int KnobsChanged(const Config& a, const Config& b) {
  int changed = 0;
  for (size_t i = 0; i < a.value_indices().size(); ++i) {
    changed += a.value_indices()[i] != b.value_indices()[i];
  }
  return changed;
}

TEST(DrawTest, LazyPermutationDrawsEachValueOnce) {
  std::mt19937_64 rng(11);
  LazyPermutation perm(1000);
  std::vector<uint64_t> drawn;
  while (!perm.empty()) drawn.push_back(perm.Next(rng));
  EXPECT_FALSE(std::is_sorted(drawn.begin(), drawn.end()));
  std::sort(drawn.begin(), drawn.end());
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(drawn[i], i);
}

TEST(DrawTest, DrawBelowIsUniform) {
  std::mt19937_64 rng(5);
  std::vector<int> counts(6);
  for (int i = 0; i < 60000; ++i) ++counts[DrawBelow(rng, 6)];
  // 10000 expected each; the standard deviation is about 91.
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  EXPECT_EQ(DrawBelow(rng, 1), 0u);
}

// Tuning runs are reproduced from their seed, so the draws are part of the format: this pins them.
TEST(DrawTest, DrawsArePinned) {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> draws;
  for (int i = 0; i < 6; ++i) draws.push_back(DrawBelow(rng, 1000));
  EXPECT_EQ(draws, (std::vector<uint64_t>{528, 462, 930, 246, 384, 409}));
  std::mt19937_64 sample_rng(1);
  const std::vector<int64_t> sample =
      Indices(SmallSpace(/*filtered=*/true).SampleUnique(6, sample_rng));
  EXPECT_EQ(sample, (std::vector<int64_t>{176, 197, 0, 188, 70, 160}));
}

TEST(SampleUniqueTest, DistinctValidAndNotExcluded) {
  const ConfigSpace space = SmallSpace(/*filtered=*/true);
  const std::vector<int64_t> exclude = {0, 1, 2, 3, 4, 5, 100, 101, 215};
  std::mt19937_64 rng(1);
  const std::vector<Config> sample = space.SampleUnique(50, rng, exclude);
  ASSERT_EQ(sample.size(), 50u);
  std::set<int64_t> seen;
  for (const Config& c : sample) {
    EXPECT_TRUE(seen.insert(c.index()).second) << "repeated " << c.ToString();
    EXPECT_TRUE(space.Validate(c).ok()) << c.ToString();
    EXPECT_EQ(std::count(exclude.begin(), exclude.end(), c.index()), 0) << c.index();
  }
}

TEST(SampleUniqueTest, SameSeedSameResult) {
  const ConfigSpace space = BigSpace();
  std::mt19937_64 a(42), b(42), c(43);
  const std::vector<int64_t> first = Indices(space.SampleUnique(100, a));
  EXPECT_EQ(first, Indices(space.SampleUnique(100, b)));
  EXPECT_NE(first, Indices(space.SampleUnique(100, c)));
  // The rng advances: the next batch differs.
  EXPECT_NE(first, Indices(space.SampleUnique(100, a)));
}

TEST(SampleUniqueTest, ReturnsEveryValidPointWhenNExceedsThem) {
  const ConfigSpace space = SmallSpace(/*filtered=*/true);
  std::set<int64_t> valid;
  for (int64_t i = 0; i < space.size(); ++i) {
    if (space.Validate(*space.Get(i)).ok() && i % 7 != 0) valid.insert(i);
  }
  std::vector<int64_t> exclude;
  for (int64_t i = 0; i < space.size(); i += 7) exclude.push_back(i);
  std::mt19937_64 rng(9);
  const std::vector<int64_t> got = Indices(space.SampleUnique(1000, rng, exclude));
  EXPECT_EQ(got.size(), valid.size());
  EXPECT_EQ(std::set<int64_t>(got.begin(), got.end()), valid);

  const ConfigSpace unfiltered = SmallSpace(/*filtered=*/false);
  EXPECT_EQ(unfiltered.SampleUnique(unfiltered.size(), rng).size(), 216u);
  EXPECT_TRUE(unfiltered.SampleUnique(0, rng).empty());
}

TEST(SampleUniqueTest, TinySpaceIsSearchedExhaustively) {
  ConfigSpace space;
  space.define_knob("a", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  space.define_knob("b", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  space.define_knob("c", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  space.AddFilter("one_point", [](const Config& c) { return c.index() == 737; });
  std::mt19937_64 rng(2);
  EXPECT_EQ(Indices(space.SampleUnique(5, rng)), std::vector<int64_t>{737});
  EXPECT_TRUE(space.SampleUnique(5, rng, {737}).empty());
}

TEST(SampleUniqueTest, HugeSpaceIsFastAndUniformEnough) {
  const ConfigSpace space = BigSpace();
  std::mt19937_64 rng(3);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Config> sample = space.SampleUnique(20000, rng);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.0);
  ASSERT_EQ(sample.size(), 20000u);
  absl::flat_hash_set<int64_t> seen;
  std::vector<int> unroll_counts(4);
  for (const Config& c : sample) {
    EXPECT_TRUE(seen.insert(c.index()).second);
    ++unroll_counts[c.value_indices()[4]];
  }
  // The slowest knob is as uniform as the index: 5000 each, standard deviation about 61.
  for (int count : unroll_counts) EXPECT_NEAR(count, 5000, 300);
}

TEST(SampleUniqueTest, AlmostEverythingFilteredTerminates) {
  ConfigSpace space = BigSpace();
  space.AddFilter("needle", [](const Config& c) { return c.index() == 123456789; });
  std::mt19937_64 rng(4);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Config> sample = space.SampleUnique(10, rng);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LE(sample.size(), 1u);
  EXPECT_LT(seconds, 2.0);
}

TEST(SampleUniqueTest, SingleDrawsAreUniform) {
  ConfigSpace space;
  space.define_knob("k", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::vector<int> counts(10);
  for (uint64_t seed = 0; seed < 20000; ++seed) {
    std::mt19937_64 rng(seed);
    ++counts[space.SampleUnique(1, rng)[0].knob("k")];
  }
  // 2000 expected each; the standard deviation is about 42.
  for (int c : counts) EXPECT_NEAR(c, 2000, 200);
}

TEST(NeighbourTest, ChangesExactlyOneKnobAndStaysValid) {
  ConfigSpace space = BigSpace();
  space.AddFilter("small_inner_x", [](const Config& c) { return c.split("tile_x")[3] <= 16; });
  std::mt19937_64 rng(8);
  const std::vector<Config> starts = space.SampleUnique(200, rng);
  ASSERT_EQ(starts.size(), 200u);
  for (const Config& start : starts) {
    const Config next = space.Neighbour(start, rng);
    EXPECT_EQ(KnobsChanged(start, next), 1) << start.ToString() << " -> " << next.ToString();
    EXPECT_TRUE(space.Validate(next).ok()) << next.ToString();
    EXPECT_EQ(space.FromValueIndices(next.value_indices())->index(), next.index());
  }
}

TEST(NeighbourTest, ReachesEveryValidNeighbour) {
  const ConfigSpace space = SmallSpace(/*filtered=*/true);
  const Config start = *space.FromValueIndices({2, 3, 1, 2});
  std::set<int64_t> expected;
  for (int64_t i = 0; i < space.size(); ++i) {
    const Config c = *space.Get(i);
    if (KnobsChanged(start, c) == 1 && space.Validate(c).ok()) expected.insert(i);
  }
  ASSERT_EQ(expected.size(), 5u + 5u + 1u + 1u);  // unroll_kw=1 is filtered out
  std::set<int64_t> seen;
  std::mt19937_64 rng(6);
  for (int i = 0; i < 2000; ++i) seen.insert(space.Neighbour(start, rng).index());
  EXPECT_EQ(seen, expected);

  std::mt19937_64 a(12), b(12);
  EXPECT_EQ(space.Neighbour(start, a), space.Neighbour(start, b));
}

TEST(NeighbourTest, ReturnsConfigItselfWithoutValidNeighbour) {
  ConfigSpace space = SmallSpace(/*filtered=*/false);
  space.AddFilter("only_17", [](const Config& c) { return c.index() == 17; });
  std::mt19937_64 rng(1);
  const Config start = *space.Get(17);
  EXPECT_EQ(space.Neighbour(start, rng), start);

  ConfigSpace fixed;
  fixed.define_reorder("re", 3, {.policy = ReorderPolicy::kIdentity});
  fixed.define_knob("k", {4});
  EXPECT_EQ(fixed.Neighbour(*fixed.Get(0), rng), *fixed.Get(0));
}

}  // namespace
}  // namespace tessel::search
