// lrn.gpu against libtorch on OpenCL (PoCL, this machine's CPU): odd and even windows, a window
// wider than the channels, AlexNet's first LRN; the fallback and random configs; the fallback
// through NVRTC and ptxas for sm_90 (skipped without the CUDA toolkit); argument errors naming
// the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/target/target_facts.h"

namespace tessel::ops::cuda {
namespace {

using testing::CheckFallback;
using testing::CheckOptions;
using testing::CheckRandomConfigs;

const Template& Lrn() {
  absl::StatusOr<const Template*> t = FindTemplate("lrn.gpu");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

CheckOptions On(const std::string& target) {
  return {.target = tessel::testing::ParseTarget(target)};
}

OpArgs Args(int64_t n, int64_t c, int64_t h, int64_t w, int64_t size) {
  return {{"n", n}, {"c", c}, {"h", h}, {"w", w}, {"size", size}, {"alpha", 0.01}, {"bias", 2.0}};
}

TEST(GpuLrnTest, FallbackOnOpenCl) {
  for (const OpArgs& args :
       {Args(1, 96, 55, 55, 5), Args(2, 7, 5, 3, 4), Args(1, 3, 4, 4, 9), Args(1, 5, 1, 1, 1)}) {
    absl::Status s = CheckFallback(Lrn(), args, On("opencl"));
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

TEST(GpuLrnTest, RandomConfigsOnOpenCl) {
  absl::Status s = CheckRandomConfigs(Lrn(), Args(2, 16, 9, 7, 3), 10, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(GpuLrnTest, FallbackThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  absl::Status s = CheckFallback(Lrn(), Args(1, 96, 55, 55, 5), On("cuda -arch=sm_90"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(GpuLrnTest, ArgumentErrors) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  OpArgs no_size = Args(1, 4, 2, 2, 3);
  no_size.erase("size");
  for (const auto& [args, key] : std::vector<std::pair<OpArgs, std::string>>{
           {no_size, "size"}, {Args(1, 0, 2, 2, 3), "c"}, {Args(1, 4, 2, 2, 0), "size"}}) {
    absl::StatusOr<search::ConfigSpace> space = Lrn().space(args, facts);
    ASSERT_FALSE(space.ok()) << args.dump();
    EXPECT_NE(space.status().message().find("lrn.gpu: "), std::string::npos)
        << space.status().message();
    EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
        << space.status().message();
  }
}

}  // namespace
}  // namespace tessel::ops::cuda
