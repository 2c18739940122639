// The GPU convolution templates for "cuda -arch=sm_90": the fallback on Table 2 layers and 20
// random configs per template through NVRTC and ptxas, the kernel's resources (threads, shared
// memory, registers) checked against the GPU's limits by the backend; run against libtorch
// where a CUDA device is present (elsewhere the gtest property `not_run` says why). Skipped,
// with the reason, where the build has no CUDA toolkit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/cuda/conv2d_gpu_testing.h"
#include "compiler/ops/testing/conv_args.h"

namespace tessel::ops::cuda {
namespace {

#ifdef TESSEL_CUDA_MISSING
#define SKIP_WITHOUT_TOOLKIT() GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING
#else
#define SKIP_WITHOUT_TOOLKIT() (void)0
#endif

using ops::testing::SquareConvArgs;
using ::testing::AllOf;
using testing::Get;
using ::testing::HasSubstr;
using testing::OnCuda;

OpArgs Transpose(int64_t ic, int64_t hw, int64_t oc, int64_t k, int64_t s, int64_t p) {
  OpArgs args = SquareConvArgs(ic, hw, oc, k, s, p);
  args.erase("dilation");
  args.erase("groups");
  args["output_padding"] = {0, 0};
  return args;
}

TEST(Conv2dCudaTest, DirectTable2LayersAndRandomConfigs) {
  SKIP_WITHOUT_TOOLKIT();
  const Template& t = Get("conv2d_direct.gpu");
  for (const OpArgs& args :
       {SquareConvArgs(3, 224, 64, 7, 2, 3), SquareConvArgs(64, 56, 64, 1, 1, 0),
        SquareConvArgs(256, 14, 512, 1, 2, 0), SquareConvArgs(512, 7, 512, 3, 1, 1)}) {
    absl::Status s = ops::testing::CheckFallback(t, args, OnCuda());
    EXPECT_TRUE(s.ok()) << s;
  }
  absl::Status s =
      ops::testing::CheckRandomConfigs(t, SquareConvArgs(128, 28, 128, 3, 1, 1), 20, OnCuda());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dCudaTest, DepthwiseTable2LayersAndRandomConfigs) {
  SKIP_WITHOUT_TOOLKIT();
  const Template& t = Get("depthwise_conv2d.gpu");
  for (const OpArgs& args :
       {SquareConvArgs(32, 112, 32, 3, 1, 1, 32), SquareConvArgs(1024, 7, 1024, 3, 1, 1, 1024)}) {
    absl::Status s = ops::testing::CheckFallback(t, args, OnCuda());
    EXPECT_TRUE(s.ok()) << s;
  }
  absl::Status s =
      ops::testing::CheckRandomConfigs(t, SquareConvArgs(64, 112, 64, 3, 2, 1, 64), 20, OnCuda());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dCudaTest, TransposeRandomConfigs) {
  SKIP_WITHOUT_TOOLKIT();
  absl::Status s = ops::testing::CheckRandomConfigs(Get("conv2d_transpose.gpu"),
                                                    Transpose(128, 16, 64, 4, 2, 1), 20, OnCuda());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dCudaTest, GroupedAndWinogradTable2LayersAndRandomConfigs) {
  SKIP_WITHOUT_TOOLKIT();
  const Template& grouped = Get("conv2d_grouped.gpu");
  absl::Status s = ops::testing::CheckRandomConfigs(
      grouped, SquareConvArgs(128, 28, 128, 3, 1, 1, 32), 20, OnCuda());
  EXPECT_TRUE(s.ok()) << s;
  const Template& winograd = Get("conv2d_winograd.gpu");
  for (const OpArgs& args :
       {SquareConvArgs(64, 56, 64, 3, 1, 1), SquareConvArgs(256, 14, 256, 3, 1, 1),
        SquareConvArgs(512, 7, 512, 3, 1, 1)}) {
    s = ops::testing::CheckFallback(winograd, args, OnCuda());
    EXPECT_TRUE(s.ok()) << s;
  }
  s = ops::testing::CheckRandomConfigs(winograd, SquareConvArgs(128, 28, 128, 3, 1, 1), 20,
                                       OnCuda());
  EXPECT_TRUE(s.ok()) << s;
}

// 32 x 8 x 8 = 2048 threads per block against CUDA's 1024: the backend refuses it before NVRTC.
TEST(Conv2dCudaTest, ConfigOverTheThreadLimitIsRefused) {
  SKIP_WITHOUT_TOOLKIT();
  const Template& t = Get("conv2d_direct.gpu");
  const OpArgs args = SquareConvArgs(8, 16, 32, 3, 1, 1);
  const target::TargetFacts facts = *target::DescribeTarget(OnCuda().target);
  const search::ConfigSpace space = *t.space(args, facts);
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs",
                                                           {{"tile_f", {1, 1, 32, 1}},
                                                            {"tile_y", {2, 1, 8, 1}},
                                                            {"tile_x", {2, 1, 8, 1}},
                                                            {"tile_rc", {2, 4}},
                                                            {"tile_ry", {1, 3}},
                                                            {"tile_rx", {1, 3}},
                                                            {"auto_unroll_max_step", 0},
                                                            {"unroll_explicit", 0}}}});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(space.Validate(*config).message(), HasSubstr("threads_per_block"));
  absl::Status s = ops::testing::CheckConfig(t, args, *config, OnCuda());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("2048 threads per block"), HasSubstr("limit of 1024 threads")));
}

}  // namespace
}  // namespace tessel::ops::cuda
