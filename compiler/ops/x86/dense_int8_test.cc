// dense_int8.x86 against libtorch's dense_int8, bit for bit: requantized (shifts from 0 to 31,
// with and without relu) and wrapped to the low 8 bits; one row and several, extents no vector
// or tile divides (n = 1000, k = 50, k below one vector), a ResNet classifier's and a larger
// one's shapes; chosen and random configs; a wrong shift caught; the cpu strategy's choice;
// argument errors naming the key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "baselines/torch/reference.h"
#include "compiler/ops/strategy.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

const Template& DenseInt8() { return testing::GetTemplate("dense_int8.x86"); }

OpArgs Dense(int64_t m, int64_t n, int64_t k) { return {{"m", m}, {"n", n}, {"k", k}}; }

OpArgs Requantized(OpArgs args, int64_t shift, bool relu = false) {
  args["shift"] = shift;
  if (relu) args["relu"] = true;
  return args;
}

void ExpectFallbackExact(const OpArgs& args) {
  absl::Status s = testing::CheckFallback(DenseInt8(), args);
  EXPECT_TRUE(s.ok()) << s;
}

const target::TargetFacts& TestFacts() {
  static const target::TargetFacts* const facts = [] {
    absl::StatusOr<target::TargetFacts> f = target::DescribeTarget(testing::CheckOptions().target);
    EXPECT_TRUE(f.ok()) << f.status();
    return new target::TargetFacts(f.ok() ? *f : target::TargetFacts{});
  }();
  return *facts;
}

TEST(DenseInt8Test, RequantizedFallback) {
  // Products of about +-2^13 (standard deviation), so k = 512 sums spread over about +-2^17:
  // shift 10 spreads them over the clip's range; k = 50 likewise with shift 8.
  ExpectFallbackExact(Requantized(Dense(1, 1000, 512), 10));
  ExpectFallbackExact(Requantized(Dense(1, 1000, 512), 10, /*relu=*/true));
  ExpectFallbackExact(Requantized(Dense(3, 18, 50), 8));
  ExpectFallbackExact(Requantized(Dense(3, 18, 50), 8, /*relu=*/true));
  ExpectFallbackExact(Requantized(Dense(8, 64, 256), 10));
  // Shift 0: nearly every output clipped; shift 31: -1 for every negative sum (an arithmetic
  // shift; a logical one would give 1), 0 otherwise.
  ExpectFallbackExact(Requantized(Dense(2, 20, 40), 0));
  ExpectFallbackExact(Requantized(Dense(2, 20, 40), 31));
  ExpectFallbackExact(Requantized(Dense(2, 20, 40), 31, /*relu=*/true));
}

TEST(DenseInt8Test, WrappedFallback) {
  ExpectFallbackExact(Dense(1, 1000, 512));
  ExpectFallbackExact(Dense(3, 18, 50));
  ExpectFallbackExact(Dense(6, 32, 64));
}

TEST(DenseInt8Test, AwkwardShapesFallback) {
  // Primes everywhere (no tile divides but 1), k below one vector, a single element.
  ExpectFallbackExact(Requantized(Dense(7, 13, 29), 8, /*relu=*/true));
  ExpectFallbackExact(Dense(5, 7, 3));
  ExpectFallbackExact(Requantized(Dense(5, 7, 3), 4));
  ExpectFallbackExact(Dense(1, 1, 1));
  ExpectFallbackExact(Requantized(Dense(1, 1, 1), 0));
}

TEST(DenseInt8Test, NetworkLayersFallback) {
  // ResNet-50's classifier (2048 -> 1000) and a 3136-long reduction (a 7x7x64 flatten), one row.
  ExpectFallbackExact(Requantized(Dense(1, 1000, 2048), 13));
  ExpectFallbackExact(Requantized(Dense(1, 1000, 3136), 13, /*relu=*/true));
  ExpectFallbackExact(Dense(1, 1000, 3136));
}

// The space's corners: every lane count, the widest tiles the filter allows and the narrowest,
// on extents that leave a guarded last block of k.
TEST(DenseInt8Test, ChosenConfigs) {
  const OpArgs args = Requantized(Dense(4, 24, 70), 9);
  absl::StatusOr<search::ConfigSpace> space = DenseInt8().space(args, TestFacts());
  ASSERT_TRUE(space.ok()) << space.status();
  const int64_t lanes = std::max(TestFacts().lanes(), 4);
  struct Knobs {
    int64_t mt, nt, lanes_k;
  };
  int checked = 0;
  for (const Knobs& k :
       {Knobs{1, 1, lanes}, Knobs{1, 1, 4 * lanes}, Knobs{4, 4, lanes}, Knobs{2, 8, lanes},
        Knobs{1, 12, 2 * lanes}, Knobs{4, 1, 4 * lanes}, Knobs{2, 3, 2 * lanes}}) {
    absl::StatusOr<search::Config> config = space->FromJson(
        {{"knobs",
          {{"tile_m", {4 / k.mt, k.mt}}, {"tile_n", {24 / k.nt, k.nt}}, {"lanes_k", k.lanes_k}}}});
    ASSERT_TRUE(config.ok()) << config.status();
    if (!space->Validate(*config).ok()) continue;  // more accumulators than registers here
    absl::Status s = testing::CheckConfig(DenseInt8(), args, *config);
    EXPECT_TRUE(s.ok()) << config->ToJson().dump() << ": " << s;
    ++checked;
  }
  EXPECT_GE(checked, 5);
  // Wrapped, with k a multiple of every lane count (no guarded block).
  const OpArgs wrapped = Dense(2, 16, 256);
  space = DenseInt8().space(wrapped, TestFacts());
  ASSERT_TRUE(space.ok()) << space.status();
  absl::StatusOr<search::Config> config = space->FromJson(
      {{"knobs", {{"tile_m", {1, 2}}, {"tile_n", {4, 4}}, {"lanes_k", 2 * lanes}}}});
  ASSERT_TRUE(config.ok()) << config.status();
  absl::Status s = testing::CheckConfig(DenseInt8(), wrapped, *config);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DenseInt8Test, RandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(DenseInt8(), Requantized(Dense(4, 24, 70), 9), 16);
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckRandomConfigs(DenseInt8(), Requantized(Dense(3, 18, 50), 8, true), 10);
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckRandomConfigs(DenseInt8(), Dense(6, 20, 33), 10);
  EXPECT_TRUE(s.ok()) << s;
}

// The space is small and every point of it keeps its accumulators in the registers.
TEST(DenseInt8Test, SpaceIsSmallAndFiltered) {
  absl::StatusOr<search::ConfigSpace> space =
      DenseInt8().space(Requantized(Dense(1, 1000, 512), 10), TestFacts());
  ASSERT_TRUE(space.ok()) << space.status();
  // tile_m: 1; tile_n: the divisors of 1000 up to 16 (1, 2, 4, 5, 8, 10); lanes_k: 3.
  EXPECT_EQ(space->size(), 18);
  const int64_t lanes = std::max(TestFacts().lanes(), 4);
  absl::StatusOr<search::Config> too_many = space->FromJson(
      {{"knobs", {{"tile_m", {1, 1}}, {"tile_n", {100, 10}}, {"lanes_k", 4 * lanes}}}});
  ASSERT_TRUE(too_many.ok()) << too_many.status();
  EXPECT_FALSE(space->Validate(*too_many).ok());  // 40 vectors of accumulators
}

// The comparison can fail: the program's outputs equal the reference's for its own shift and
// differ from those for the next shift, and from the wrapped sums.
TEST(DenseInt8Test, AnotherShiftDiffers) {
  const OpArgs args = Requantized(Dense(3, 18, 50), 8);
  absl::StatusOr<std::optional<testing::ConfigRun>> run =
      testing::RunFallback(DenseInt8(), args, {.seed = 3});
  ASSERT_TRUE(run.ok()) << run.status();
  if (!run->has_value()) return;  // compiled for a CPU this one is not
  const testing::ConfigRun& r = **run;
  EXPECT_TRUE(testing::MatchesReference("dense_int8", args, r).ok());
  EXPECT_FALSE(testing::MatchesReference("dense_int8", Requantized(args, 9), r).ok());
  EXPECT_FALSE(testing::MatchesReference("dense_int8", Requantized(args, 8, true), r).ok());
  OpArgs wrapped = args;
  wrapped.erase("shift");
  EXPECT_FALSE(testing::MatchesReference("dense_int8", wrapped, r, 2).ok());
}

TEST(DenseInt8Test, TheCpuStrategyChoosesIt) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(target::Target::Llvm());
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<const Template*> t =
      SelectTemplate("dense_int8", Requantized(Dense(1, 1000, 512), 10), *facts);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)->name, "dense_int8.x86");
}

TEST(DenseInt8Test, ArgumentErrorsNameTheKey) {
  target::TargetFacts facts;
  auto error = [&](const OpArgs& args) {
    absl::StatusOr<search::ConfigSpace> s = DenseInt8().space(args, facts);
    EXPECT_FALSE(s.ok()) << args.dump();
    EXPECT_TRUE(absl::IsInvalidArgument(s.status())) << s.status();
    return std::string(s.status().message());
  };
  const OpArgs dense = Dense(2, 8, 16);
  EXPECT_THAT(error(Requantized(dense, 32)),
              HasSubstr("dense_int8.x86: argument 'shift' must be at most 31"));
  EXPECT_THAT(error(Requantized(dense, -1)), HasSubstr("dense_int8.x86: argument 'shift'"));
  OpArgs relu_alone = dense;
  relu_alone["relu"] = true;
  EXPECT_THAT(error(relu_alone), HasSubstr("dense_int8.x86: argument 'relu' goes with 'shift'"));
  OpArgs no_n = dense;
  no_n.erase("n");
  EXPECT_THAT(error(no_n), HasSubstr("dense_int8.x86: missing argument 'n'"));
  EXPECT_THAT(error(Dense(0, 8, 16)), HasSubstr("dense_int8.x86: argument 'm'"));
  OpArgs text_k = dense;
  text_k["k"] = "many";
  EXPECT_THAT(error(text_k), HasSubstr("dense_int8.x86: argument 'k'"));
}

}  // namespace
}  // namespace tessel::ops
