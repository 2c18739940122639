// dense.mali against libtorch on `opencl -device=mali` (run on PoCL here, with the Mali limits
// enforced by the OpenCL backend): the fallback and 20 random configs of ResNet's classifier
// (m = 1), a wide batch-1 layer and an odd shape (k not a multiple of 4), awkward fallbacks, a
// fused tail, argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

const Template& Dense() {
  absl::StatusOr<const Template*> t = FindTemplate("dense.mali");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Args(int64_t m, int64_t n, int64_t k, bool bias = false) {
  return {{"m", m}, {"n", n}, {"k", k}, {"bias", bias}};
}

testing::CheckOptions Mali() {
  testing::CheckOptions o;
  o.atol = 2e-3;
  o.rtol = 2e-3;
  o.target = tessel::testing::ParseTarget("opencl -device=mali");
  return o;
}

TEST(DenseMaliTest, ResNetClassifierRandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(Dense(), Args(1, 1000, 512, true), 20, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DenseMaliTest, WideBatchOneRandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(Dense(), Args(1, 4096, 1024), 20, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DenseMaliTest, OddShapeRandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(Dense(), Args(16, 100, 77, true), 20, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DenseMaliTest, AwkwardFallbacks) {
  for (const OpArgs& args :
       {Args(1, 1, 1), Args(3, 5, 6, true), Args(33, 2, 130), Args(7, 65, 4)}) {
    absl::Status s = testing::CheckFallback(Dense(), args, Mali());
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DenseMaliTest, FusedTail) {
  absl::Status s = testing::CheckTailRandomConfigs(Dense(), Args(16, 100, 77, true), 3, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DenseMaliTest, ArgumentErrors) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(Mali().target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<search::ConfigSpace> s = Dense().space({{"m", 1}, {"n", 4}}, *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("dense.mali"));
  EXPECT_THAT(s.status().message(), HasSubstr("'k'"));
  s = Dense().space(Args(1, 4, 4), target::TargetFacts());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("is not a GPU"));
}

}  // namespace
}  // namespace tessel::ops
