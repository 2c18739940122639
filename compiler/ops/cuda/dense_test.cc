// dense.gpu against libtorch: run on OpenCL (PoCL here) and, built through NVRTC and ptxas only,
// for CUDA sm_90: the fallback and 20 random configs on ResNet's classifier (m = 1), a wide batch-1
// layer and an odd shape; the fallback's two forms; a fused tail; argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

const Template& Dense() {
  absl::StatusOr<const Template*> t = FindTemplate("dense.gpu");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Args(int64_t m, int64_t n, int64_t k, bool bias = false) {
  return {{"m", m}, {"n", n}, {"k", k}, {"bias", bias}};
}

// Sums of up to 1024 products of values in [-1, 1), in another order than libtorch's.
testing::CheckOptions On(const char* target) {
  testing::CheckOptions o;
  o.atol = 2e-3;
  o.rtol = 2e-3;
  o.target = tessel::testing::ParseTarget(target);
  return o;
}

const OpArgs kResNetFc = Args(1, 1000, 512, true);
const OpArgs kWide = Args(1, 4096, 1024);
const OpArgs kOdd = Args(16, 100, 77, true);

TEST(DenseGpuTest, ResNetClassifierOnOpenCl) {
  absl::Status s = testing::CheckRandomConfigs(Dense(), kResNetFc, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DenseGpuTest, WideBatchOneOnOpenCl) {
  absl::Status s = testing::CheckRandomConfigs(Dense(), kWide, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DenseGpuTest, OddShapeOnOpenCl) {
  absl::Status s = testing::CheckRandomConfigs(Dense(), kOdd, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DenseGpuTest, FallbackFormsAndAwkwardShapes) {
  // Batch 1 with a long sum splits k; a batch of 16 tiles.
  for (const char* target : {"opencl", "cuda -arch=sm_90"}) {
    absl::StatusOr<target::TargetFacts> facts =
        target::DescribeTarget(tessel::testing::ParseTarget(target));
    ASSERT_TRUE(facts.ok()) << facts.status();
    for (const auto& [args, split] : {std::pair{kResNetFc, true}, {kWide, true}, {kOdd, false}}) {
      absl::StatusOr<search::ConfigSpace> space = Dense().space(args, *facts);
      ASSERT_TRUE(space.ok()) << space.status();
      const search::Config config = Dense().fallback(*space, args, *facts);
      EXPECT_TRUE(space->Validate(config).ok()) << target << " " << config.ToString();
      EXPECT_EQ(config.knob("split_k") > 1, split) << target << " " << config.ToString();
    }
  }
  for (const OpArgs& args : {Args(1, 1, 1), Args(3, 5, 1000, true), Args(2, 3, 4, true),
                             Args(37, 1, 19), Args(5, 130, 64)}) {
    absl::Status s = testing::CheckFallback(Dense(), args, On("opencl"));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DenseGpuTest, FusedTailOnOpenCl) {
  for (const OpArgs& args : {kOdd, Args(2, 300, 256, true)}) {
    absl::Status s = testing::CheckTailRandomConfigs(Dense(), args, 2, On("opencl"));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DenseGpuTest, CudaSm90BuildsThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  for (const OpArgs& args : {kResNetFc, kWide, kOdd}) {
    absl::Status s = testing::CheckRandomConfigs(Dense(), args, 20, On("cuda -arch=sm_90"));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DenseGpuTest, ArgumentErrorsNameTheKey) {
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<search::ConfigSpace> s = Dense().space({{"m", 4}, {"n", 4}}, *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'k'"));
  s = Dense().space(Args(0, 4, 4), *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'m'"));
  OpArgs bad_bias = Args(4, 4, 4);
  bad_bias["bias"] = 3;
  s = Dense().space(bad_bias, *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'bias'"));
  target::TargetFacts cpu;  // an llvm target: no GPU facts
  s = Dense().space(Args(4, 4, 4), cpu);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("dense.gpu: needs a GPU target"));
  EXPECT_THAT(s.status().message(), HasSubstr("is not a GPU"));
}

}  // namespace
}  // namespace tessel::ops
