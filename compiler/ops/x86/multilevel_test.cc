// The multi-level tiling templates (conv2d, dense, batch_matmul): that their spaces are large, and
// that their fallbacks and random points (every structure knob drawn) compute what libtorch does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ops/testing/conv_args.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ops::testing::SquareConvArgs;
using ::testing::HasSubstr;

const Template& Multilevel() { return testing::GetTemplate("conv2d_multilevel.x86"); }

target::TargetFacts Facts() {
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(testing::CheckOptions().target);
  EXPECT_TRUE(facts.ok()) << facts.status();
  return *facts;
}

// The number of valid points of t's space on args, estimated from uniformly drawn points of the
// whole (unfiltered) space.
double ValidPoints(const Template& t, const OpArgs& args) {
  absl::StatusOr<search::ConfigSpace> space = t.space(args, Facts());
  EXPECT_TRUE(space.ok()) << space.status();
  if (!space.ok()) return 0;
  std::mt19937_64 rng(7);
  int valid = 0;
  constexpr int kDraws = 4000;
  for (int i = 0; i < kDraws; ++i) {
    absl::StatusOr<search::Config> c = space->Get(static_cast<int64_t>(rng() % space->size()));
    EXPECT_TRUE(c.ok()) << c.status();
    valid += c.ok() && space->Validate(*c).ok() ? 1 : 0;
  }
  return static_cast<double>(space->size()) * valid / kDraws;
}

// The issue asks for spaces of at least 10^7 valid configs: Table 2's C6 (128 channels, 28x28,
// 3x3) and a BERT-base attention product (12 heads, 128 x 64 times 64 x 128).
TEST(MultilevelTest, SpacesHaveMoreThanTenMillionValidPoints) {
  EXPECT_GT(ValidPoints(Multilevel(), SquareConvArgs(128, 28, 128, 3, 1, 1)), 1e7);
  EXPECT_GT(ValidPoints(testing::GetTemplate("batch_matmul_multilevel.x86"),
                        {{"batch", 12}, {"m", 128}, {"n", 128}, {"k", 64}}),
            1e7);
}

TEST(Conv2dMultilevelTest, FallbackOnTable2LayersAndAwkwardShapes) {
  OpArgs asym = SquareConvArgs(5, 13, 7, 3, 1, 0);
  asym["w"] = 17;
  asym["pad"] = {1, 0, 2, 1};
  OpArgs dilated = SquareConvArgs(6, 11, 10, 3, 1, 2);
  dilated["dilation"] = {2, 2};
  OpArgs rect = SquareConvArgs(4, 9, 6, 3, 2, 1);
  rect["kw"] = 5;
  rect["stride"] = {1, 2};
  rect["n"] = 2;
  for (const OpArgs& args :
       {SquareConvArgs(3, 224, 64, 7, 2, 3), SquareConvArgs(64, 56, 64, 1, 1, 0),
        SquareConvArgs(128, 28, 128, 3, 1, 1), SquareConvArgs(512, 7, 512, 3, 1, 1), asym, dilated,
        rect}) {
    absl::Status s = testing::CheckFallback(Multilevel(), args, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

// Random points draw every knob: split levels, both reduction orders, the vectorized axis,
// unroll and parallel depths, where the accumulators and the padded window are computed.
TEST(Conv2dMultilevelTest, RandomConfigs) {
  OpArgs padded = SquareConvArgs(24, 10, 48, 3, 1, 1);
  padded["pad"] = {1, 0, 1, 2};
  for (const OpArgs& args : {padded, SquareConvArgs(16, 12, 32, 3, 2, 1)}) {
    absl::Status s =
        testing::CheckRandomConfigs(Multilevel(), args, 15, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DenseMultilevelTest, FallbackAndRandomConfigs) {
  const Template& t = testing::GetTemplate("dense_multilevel.x86");
  for (const OpArgs& args : {OpArgs{{"m", 1}, {"n", 1000}, {"k", 512}, {"bias", true}},
                             OpArgs{{"m", 6}, {"n", 40}, {"k", 24}, {"bias", false}}}) {
    absl::Status s = testing::CheckFallback(t, args, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
  absl::Status s = testing::CheckRandomConfigs(t, {{"m", 12}, {"n", 48}, {"k", 20}, {"bias", true}},
                                               20, testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(BatchMatmulMultilevelTest, FallbackAndRandomConfigs) {
  const Template& t = testing::GetTemplate("batch_matmul_multilevel.x86");
  absl::Status s = testing::CheckFallback(t, {{"batch", 12}, {"m", 128}, {"n", 64}, {"k", 128}},
                                          testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckRandomConfigs(t, {{"batch", 3}, {"m", 12}, {"n", 32}, {"k", 20}}, 20,
                                  testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(MultilevelTest, ArgumentErrors) {
  absl::StatusOr<search::ConfigSpace> dense =
      testing::GetTemplate("dense_multilevel.x86").space({{"m", 4}, {"n", 8}}, Facts());
  ASSERT_FALSE(dense.ok());
  EXPECT_THAT(dense.status().message(), HasSubstr("dense_multilevel.x86"));
  EXPECT_THAT(dense.status().message(), HasSubstr("'k'"));

  absl::StatusOr<search::ConfigSpace> space =
      Multilevel().space(SquareConvArgs(8, 8, 8, 3, 1, 1, 2), Facts());
  ASSERT_FALSE(space.ok());
  EXPECT_THAT(space.status().message(), HasSubstr("conv2d_multilevel.x86"));
  EXPECT_THAT(space.status().message(), HasSubstr("'groups' must be 1"));
  OpArgs missing = SquareConvArgs(8, 8, 8, 3, 1, 1);
  missing.erase("kh");
  space = Multilevel().space(missing, Facts());
  ASSERT_FALSE(space.ok());
  EXPECT_THAT(space.status().message(), HasSubstr("kh"));
}

}  // namespace
}  // namespace tessel::ops
