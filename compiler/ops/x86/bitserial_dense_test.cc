// bitserial_dense_pack.x86 against libtorch (float64 on exact integers): unipolar and bipolar,
// several bit widths, awkward shapes (primes, k not a multiple of 32, m = 1), random configs,
// argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

const Template& BitserialDense() {
  absl::StatusOr<const Template*> t = FindTemplate("bitserial_dense_pack.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Args(int64_t m, int64_t n, int64_t k, int64_t abits = 2, int64_t wbits = 1,
            bool unipolar = true) {
  return {{"m", m},
          {"n", n},
          {"k", k},
          {"activation_bits", abits},
          {"weight_bits", wbits},
          {"unipolar", unipolar}};
}

TEST(BitserialDensePackTest, UnipolarFallback) {
  for (const OpArgs& args :
       {Args(1, 64, 512), Args(16, 128, 1024, 2, 2), Args(7, 13, 33), Args(5, 100, 31, 1, 1),
        Args(1, 1, 1), Args(3, 37, 70, 8, 8), Args(31, 17, 95, 3, 2)}) {
    absl::Status s = testing::CheckFallback(BitserialDense(), args);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(BitserialDensePackTest, BipolarFallback) {
  for (const OpArgs& args : {Args(1, 64, 512, 2, 1, false), Args(7, 13, 33, 2, 1, false),
                             Args(9, 40, 100, 4, 1, false), Args(1, 1, 1, 1, 1, false)}) {
    absl::Status s = testing::CheckFallback(BitserialDense(), args);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(BitserialDensePackTest, Avx2TargetFallback) {
  // No vector popcount instruction: LLVM expands it.
  testing::CheckOptions o;
  o.target = tessel::testing::ParseTarget("llvm -mcpu=haswell");
  for (const OpArgs& args : {Args(3, 40, 200, 2, 2), Args(5, 17, 64, 2, 1, false)}) {
    absl::Status s = testing::CheckFallback(BitserialDense(), args, o);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(BitserialDensePackTest, RandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(BitserialDense(), Args(11, 45, 70, 2, 2), 20);
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckRandomConfigs(BitserialDense(), Args(6, 33, 130, 3, 1, false), 20);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(BitserialDensePackTest, ArgumentErrorsNameTheKey) {
  target::TargetFacts facts;
  absl::StatusOr<search::ConfigSpace> s = BitserialDense().space(Args(4, 4, 4, 2, 2, false), facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'weight_bits'"));
  s = BitserialDense().space(Args(4, 4, 4, 9), facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'activation_bits'"));
  s = BitserialDense().space(Args(4, 4, 4, 0), facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'activation_bits'"));
  OpArgs no_n = Args(4, 4, 4);
  no_n.erase("n");
  s = BitserialDense().space(no_n, facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'n'"));
  OpArgs bad = Args(4, 4, 4);
  bad["unipolar"] = "yes";
  s = BitserialDense().space(bad, facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'unipolar'"));
}

}  // namespace
}  // namespace tessel::ops
