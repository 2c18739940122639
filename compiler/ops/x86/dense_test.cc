// dense_pack.x86 against libtorch: network shapes (DQN's m = 1), awkward shapes (primes, k not a
// multiple of the vector width, n smaller than a vector), random configs, argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

const Template& Dense() {
  absl::StatusOr<const Template*> t = FindTemplate("dense_pack.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Args(int64_t m, int64_t n, int64_t k, bool bias = false) {
  return {{"m", m}, {"n", n}, {"k", k}, {"bias", bias}};
}

// Sums of k products of values in [-1, 1): the rounding error grows with k.
TEST(DensePackTest, NetworkShapesFallback) {
  // DQN's first dense layer at batch 1, a square product, a classifier with bias.
  for (const OpArgs& args :
       {Args(1, 512, 3136, true), Args(128, 128, 128), Args(16, 1000, 512, true)}) {
    absl::Status s = testing::CheckFallback(Dense(), args, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DensePackTest, AwkwardShapesFallback) {
  for (const OpArgs& args :
       {Args(1, 1, 1), Args(7, 13, 17, true), Args(3, 5, 1000), Args(31, 37, 41),
        Args(1, 97, 33, true), Args(9, 130, 19), Args(2, 3, 4, true)}) {
    absl::Status s = testing::CheckFallback(Dense(), args, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DensePackTest, Avx2TargetFallback) {
  // 8 lanes and 16 registers: smaller tiles (and no AVX-512 instructions).
  testing::CheckOptions o = testing::WithTolerance(2e-3);
  o.target = tessel::testing::ParseTarget("llvm -mcpu=haswell");
  for (const OpArgs& args : {Args(1, 100, 300, true), Args(19, 45, 64)}) {
    absl::Status s = testing::CheckFallback(Dense(), args, o);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DensePackTest, BothWeightLayouts) {
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(testing::WithTolerance(2e-3).target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  for (const OpArgs& args : {Args(13, 37, 29, true), Args(1, 64, 100), Args(8, 1000, 3)}) {
    absl::StatusOr<search::ConfigSpace> space = Dense().space(args, *facts);
    ASSERT_TRUE(space.ok()) << space.status();
    for (int pack : {0, 1}) {
      nlohmann::json j = Dense().fallback(*space, args, *facts).ToJson();
      j.erase("index");
      j["knobs"]["pack_weight"] = pack;
      absl::StatusOr<search::Config> config = space->FromJson(j);
      ASSERT_TRUE(config.ok()) << config.status();
      absl::Status s = testing::CheckConfig(Dense(), args, *config, testing::WithTolerance(2e-3));
      EXPECT_TRUE(s.ok()) << "pack_weight=" << pack << ": " << s;
    }
  }
}

TEST(DensePackTest, RandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(Dense(), Args(13, 37, 29, true), 20,
                                               testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckRandomConfigs(Dense(), Args(1, 64, 100), 20, testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DensePackTest, ArgumentErrorsNameTheKey) {
  target::TargetFacts facts;
  OpArgs no_k = {{"m", 4}, {"n", 4}};
  absl::StatusOr<search::ConfigSpace> s = Dense().space(no_k, facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'k'"));
  s = Dense().space(Args(0, 4, 4), facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'m'"));
  OpArgs bad_bias = Args(4, 4, 4);
  bad_bias["bias"] = 3;
  s = Dense().space(bad_bias, facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'bias'"));
}

}  // namespace
}  // namespace tessel::ops
