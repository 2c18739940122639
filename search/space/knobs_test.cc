// The values each define_* enumerates, against brute force, and the declarations that are bugs.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "search/space/config_space.h"

namespace tessel::search {
namespace {

// Every value of knob 0 of a one-knob space, read through the accessors.
std::vector<std::vector<int64_t>> SplitValues(const ConfigSpace& space, const std::string& name) {
  std::vector<std::vector<int64_t>> out;
  for (int64_t i = 0; i < space.size(); ++i) out.push_back(space.Get(i)->split(name));
  return out;
}

// All tuples of `parts` positive integers up to `limit`, lexicographic, first most significant.
std::vector<std::vector<int64_t>> AllTuples(int parts, int64_t limit) {
  std::vector<std::vector<int64_t>> out = {{}};
  for (int p = 0; p < parts; ++p) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& t : out) {
      for (int64_t x = 1; x <= limit; ++x) {
        next.push_back(t);
        next.back().push_back(x);
      }
    }
    out = std::move(next);
  }
  return out;
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

TEST(SplitTest, FactorsMatchBruteForce) {
  for (int64_t extent : {1, 7, 12, 36, 64}) {
    for (int outputs = 1; outputs <= 4; ++outputs) {
      for (int64_t max_innermost : {0, 4}) {
        std::vector<std::vector<int64_t>> expected;
        for (const auto& inner : AllTuples(outputs - 1, extent)) {
          if (extent % Product(inner) != 0) continue;
          std::vector<int64_t> value = {extent / Product(inner)};
          value.insert(value.end(), inner.begin(), inner.end());
          if (max_innermost > 0 && value.back() > max_innermost) continue;
          expected.push_back(value);
        }
        if (expected.empty()) continue;  // no value: a failed check, tested below
        ConfigSpace space;
        space.define_split("s", extent, {.num_outputs = outputs, .max_innermost = max_innermost});
        EXPECT_EQ(SplitValues(space, "s"), expected) << "extent " << extent << ", " << outputs
                                                     << " outputs, max_innermost " << max_innermost;
      }
    }
  }
}

TEST(SplitTest, FactorsOfTwelveIntoThreeParts) {
  ConfigSpace space;
  space.define_split("s", 12, {.num_outputs = 3});
  // Ordered triples with product 12: 2^2 * 3 gives C(4, 2) * C(3, 2) = 18.
  EXPECT_EQ(space.size(), 18);
  for (const auto& v : SplitValues(space, "s")) EXPECT_EQ(Product(v), 12);
}

TEST(SplitTest, FactorsDocumentedOrder) {
  ConfigSpace space;
  space.define_split("s", 12);
  EXPECT_EQ(SplitValues(space, "s"),
            (std::vector<std::vector<int64_t>>{{12, 1}, {6, 2}, {4, 3}, {3, 4}, {2, 6}, {1, 12}}));
}

TEST(SplitTest, PowersOfTwoWithRaggedExtent) {
  for (int64_t extent : {1, 10, 16, 33}) {
    for (int outputs = 1; outputs <= 4; ++outputs) {
      for (int64_t max_innermost : {0, 4}) {
        std::vector<std::vector<int64_t>> expected;
        for (const auto& inner : AllTuples(outputs - 1, extent)) {
          bool powers =
              std::all_of(inner.begin(), inner.end(), [](int64_t x) { return (x & (x - 1)) == 0; });
          if (!powers || Product(inner) > extent) continue;
          std::vector<int64_t> value = {(extent + Product(inner) - 1) / Product(inner)};
          value.insert(value.end(), inner.begin(), inner.end());
          if (max_innermost > 0 && value.back() > max_innermost) continue;
          expected.push_back(value);
        }
        if (expected.empty()) continue;
        ConfigSpace space;
        space.define_split("s", extent,
                           {.policy = SplitPolicy::kPowerOfTwo,
                            .num_outputs = outputs,
                            .max_innermost = max_innermost});
        EXPECT_EQ(SplitValues(space, "s"), expected)
            << "extent " << extent << ", " << outputs << " outputs";
      }
    }
  }
}

TEST(SplitTest, PowersOfTwoOfTen) {
  ConfigSpace space;
  space.define_split("s", 10, {.policy = SplitPolicy::kPowerOfTwo});
  // The outer part covers the extent: 3 * 4 = 12 >= 10 is guarded by the template's split.
  EXPECT_EQ(SplitValues(space, "s"),
            (std::vector<std::vector<int64_t>>{{10, 1}, {5, 2}, {3, 4}, {2, 8}}));
}

TEST(SplitTest, Candidates) {
  ConfigSpace space;
  space.define_split("s", 20,
                     {.policy = SplitPolicy::kCandidates,
                      .num_outputs = 3,
                      .max_innermost = 8,
                      .candidates = {{0, 2, 8},   // outermost recomputed: 2
                                     {99, 2, 8},  // the same after recomputing: dropped
                                     {1, 4, 16},  // innermost above 8: dropped
                                     {1, 3, 8},   // 24 > 20: does not fit
                                     {1, 1, 3},   // ragged: 7 * 3 = 21
                                     {1, 20, 1}}});
  EXPECT_EQ(SplitValues(space, "s"),
            (std::vector<std::vector<int64_t>>{{2, 2, 8}, {7, 1, 3}, {1, 20, 1}}));
}

TEST(ReorderTest, AllPermutationsInLexicographicOrder) {
  int64_t factorial = 1;
  for (int n = 1; n <= 6; ++n) {
    factorial *= n;
    ConfigSpace space;
    space.define_reorder("r", n);
    ASSERT_EQ(space.size(), factorial);
    std::vector<int> expected(n);
    for (int i = 0; i < n; ++i) expected[i] = i;
    for (int64_t i = 0; i < space.size(); ++i) {
      EXPECT_EQ(space.Get(i)->reorder("r"), expected);
      std::next_permutation(expected.begin(), expected.end());
    }
  }
}

TEST(ReorderTest, IdentityAndCandidates) {
  ConfigSpace space;
  space.define_reorder("id", 4, {.policy = ReorderPolicy::kIdentity});
  space.define_reorder(
      "c", 3,
      {.policy = ReorderPolicy::kCandidates, .candidates = {{2, 0, 1}, {0, 1, 2}, {2, 0, 1}}});
  EXPECT_EQ(space.knob_size(0), 1);
  EXPECT_EQ(space.knob_size(1), 2);
  EXPECT_EQ(space.Get(0)->reorder("id"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(space.Get(0)->reorder("c"), (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(space.Get(1)->reorder("c"), (std::vector<int>{0, 1, 2}));
}

// The annotate values against brute force over every tuple of allowed annotations.
void CheckAnnotate(int num_axes, const AnnotateOptions& options) {
  ConfigSpace space;
  space.define_annotate("a", num_axes, options);
  std::vector<std::vector<Annotation>> expected;
  for (const auto& digits : AllTuples(num_axes, static_cast<int64_t>(options.allowed.size()))) {
    std::vector<Annotation> value;
    int vectorized = 0, parallel = 0;
    bool ok = true;
    for (int axis = 0; axis < num_axes; ++axis) {
      value.push_back(options.allowed[digits[axis] - 1]);
      if (value.back() == Annotation::kVectorize) {
        ++vectorized;
        ok &= !options.vectorize_innermost_only || axis == num_axes - 1;
      }
      if (value.back() == Annotation::kParallel) {
        ++parallel;
        ok &= !options.parallel_outermost_only || axis == 0;
      }
    }
    if (ok && vectorized <= 1 && parallel <= 1) expected.push_back(value);
  }
  std::vector<std::vector<Annotation>> got;
  for (int64_t i = 0; i < space.size(); ++i) got.push_back(space.Get(i)->annotate("a"));
  EXPECT_EQ(got, expected) << num_axes << " axes";
}

TEST(AnnotateTest, ValuesMatchBruteForce) {
  const std::vector<Annotation> all = {Annotation::kNone, Annotation::kUnroll,
                                       Annotation::kVectorize, Annotation::kParallel};
  for (int n = 1; n <= 4; ++n) {
    CheckAnnotate(n, {});
    CheckAnnotate(n, {.allowed = all});
    CheckAnnotate(n, {.allowed = all, .vectorize_innermost_only = false});
    CheckAnnotate(n, {.allowed = all, .parallel_outermost_only = false});
    CheckAnnotate(n, {.allowed = {Annotation::kVectorize, Annotation::kNone},
                      .vectorize_innermost_only = false,
                      .parallel_outermost_only = false});
  }
}

TEST(AnnotateTest, Constraints) {
  ConfigSpace space;
  space.define_annotate("a", 3,
                        {.allowed = {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize,
                                     Annotation::kParallel}});
  // Axis 0: none, unroll, parallel; axis 1: none, unroll; axis 2: none, unroll, vectorize.
  EXPECT_EQ(space.size(), 3 * 2 * 3);
  for (int64_t i = 0; i < space.size(); ++i) {
    const std::vector<Annotation>& a = space.Get(i)->annotate("a");
    EXPECT_NE(a[1], Annotation::kVectorize);
    EXPECT_NE(a[1], Annotation::kParallel);
    EXPECT_NE(a[0], Annotation::kVectorize);
    EXPECT_NE(a[2], Annotation::kParallel);
  }
  EXPECT_EQ(space.Get(0)->annotate("a"),
            (std::vector<Annotation>(3, Annotation::kNone)));  // value 0: allowed[0] everywhere

  ConfigSpace free;
  free.define_annotate(
      "a", 3,
      {.allowed = {Annotation::kNone, Annotation::kVectorize}, .vectorize_innermost_only = false});
  EXPECT_EQ(free.size(), 4);  // none everywhere, or one vectorized axis
}

TEST(ChoiceTest, ValuesInGivenOrder) {
  ConfigSpace space;
  space.define_knob("k", {8, 2, 32});
  EXPECT_EQ(space.size(), 3);
  EXPECT_EQ(space.Get(0)->knob("k"), 8);
  EXPECT_EQ(space.Get(2)->knob("k"), 32);
  EXPECT_EQ(space.knob_kind(0), KnobKind::kChoice);
}

using KnobsDeathTest = ::testing::Test;

TEST_F(KnobsDeathTest, DeclarationBugs) {
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_knob("tile_x", {1, 2});
        space.define_split("tile_x", 8);
      },
      "knob 'tile_x' is declared twice");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_knob("unroll", {});
      },
      "knob 'unroll' has no values");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_knob("unroll", {1, 2, 1});
      },
      "knob 'unroll' lists the value 1 twice");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_split("tile_y", 8,
                           {.policy = SplitPolicy::kCandidates, .candidates = {{1, 16}}});
      },
      "split knob 'tile_y'.*has no values");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_split("tile_y", 8,
                           {.policy = SplitPolicy::kCandidates, .candidates = {{1, 2, 2}}});
      },
      "split knob 'tile_y': candidate \\[1, 2, 2\\] has 3 sizes");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_split("tile_y", 0);
      },
      "split knob 'tile_y' has extent 0");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_split("tile_y", 8, {.max_innermost = 0, .candidates = {{1, 2}}});
      },
      "split knob 'tile_y' has candidates but policy factors");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_reorder("order", 3,
                             {.policy = ReorderPolicy::kCandidates, .candidates = {{0, 0, 1}}});
      },
      "reorder knob 'order': candidate \\[0, 0, 1\\] is not a permutation");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_reorder("order", 9);
      },
      "reorder knob 'order' would have 9! values");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_annotate("ann", 2, {.allowed = {Annotation::kVectorize}});
      },
      "annotate knob 'ann'.*has no values");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_annotate("ann", 2, {.allowed = {Annotation::kNone, Annotation::kNone}});
      },
      "annotate knob 'ann' allows none twice");
}

}  // namespace
}  // namespace tessel::search
