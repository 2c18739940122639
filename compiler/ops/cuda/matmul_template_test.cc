// matmul.gpu and batch_matmul.gpu against libtorch: run on OpenCL (PoCL here) and, built through
// NVRTC and ptxas only, for CUDA sm_90: the fallback and 20 random configs of an odd batched
// product and an odd matmul, awkward fallbacks, a fused tail, argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

OpArgs Matmul(int64_t m, int64_t n, int64_t k) { return {{"m", m}, {"n", n}, {"k", k}}; }

OpArgs Batched(int64_t batch, int64_t m, int64_t n, int64_t k) {
  return {{"batch", batch}, {"m", m}, {"n", n}, {"k", k}};
}

testing::CheckOptions On(const char* target) {
  testing::CheckOptions o;
  o.atol = 2e-3;
  o.rtol = 2e-3;
  o.target = tessel::testing::ParseTarget(target);
  return o;
}

const OpArgs kOddBatched = Batched(4, 33, 65, 17);
const OpArgs kOddMatmul = Matmul(45, 31, 70);

TEST(BatchMatmulGpuTest, OddShapeOnOpenCl) {
  absl::Status s = testing::CheckRandomConfigs(testing::GetTemplate("batch_matmul.gpu"),
                                               kOddBatched, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(MatmulGpuTest, OddShapeOnOpenCl) {
  absl::Status s =
      testing::CheckRandomConfigs(testing::GetTemplate("matmul.gpu"), kOddMatmul, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(MatmulGpuTest, AwkwardFallbacksOnOpenCl) {
  for (const OpArgs& args :
       {Matmul(1, 1, 1), Matmul(1, 300, 129), Matmul(128, 128, 128), Matmul(7, 2, 300)}) {
    absl::Status s = testing::CheckFallback(testing::GetTemplate("matmul.gpu"), args, On("opencl"));
    EXPECT_TRUE(s.ok()) << s;
  }
  for (const OpArgs& args : {Batched(1, 1, 1, 1), Batched(3, 64, 64, 64), Batched(2, 1, 50, 9)}) {
    absl::Status s =
        testing::CheckFallback(testing::GetTemplate("batch_matmul.gpu"), args, On("opencl"));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(MatmulGpuTest, FusedTailOnOpenCl) {
  absl::Status s = testing::CheckTailRandomConfigs(testing::GetTemplate("batch_matmul.gpu"),
                                                   kOddBatched, 2, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckTailRandomConfigs(testing::GetTemplate("matmul.gpu"), kOddMatmul, 2,
                                      On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(MatmulGpuTest, CudaSm90BuildsThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  const testing::CheckOptions cuda = On("cuda -arch=sm_90");
  absl::Status s =
      testing::CheckRandomConfigs(testing::GetTemplate("batch_matmul.gpu"), kOddBatched, 20, cuda);
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckRandomConfigs(testing::GetTemplate("matmul.gpu"), kOddMatmul, 20, cuda);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(MatmulGpuTest, ArgumentErrorsNameTheKey) {
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<search::ConfigSpace> s =
      testing::GetTemplate("batch_matmul.gpu").space(Matmul(2, 2, 2), *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("batch_matmul.gpu"));
  EXPECT_THAT(s.status().message(), HasSubstr("'batch'"));
  s = testing::GetTemplate("matmul.gpu").space(Matmul(2, -1, 2), *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'n'"));
  s = testing::GetTemplate("matmul.gpu").space(Matmul(2, 2, 2), target::TargetFacts());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("is not a GPU"));
}

}  // namespace
}  // namespace tessel::ops
