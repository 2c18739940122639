// depthwise_conv2d.gpu against libtorch on OpenCL (PoCL, on this machine's CPU): the fallback on
// Table 2's depthwise layers, random configs on reduced and awkward shapes, a fused tail, the
// validity filters, and argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ops/cuda/conv2d_gpu_testing.h"
#include "compiler/ops/testing/conv_args.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops::cuda {
namespace {

using ops::testing::SquareConvArgs;
using ::testing::AllOf;
using testing::Get;
using ::testing::HasSubstr;
using testing::OnOpencl;

constexpr char kName[] = "depthwise_conv2d.gpu";

OpArgs Depthwise(int64_t c, int64_t hw, int64_t k, int64_t stride, int64_t pad) {
  return SquareConvArgs(c, hw, c, k, stride, pad, c);
}

TEST(DepthwiseConv2dGpuTest, Table2LayersFallback) {
  const Template& t = Get(kName);
  for (const OpArgs& args : {Depthwise(32, 112, 3, 1, 1),     // D1
                             Depthwise(64, 112, 3, 2, 1),     // D2
                             Depthwise(1024, 7, 3, 1, 1)}) {  // D9
    absl::Status s = ops::testing::CheckFallback(t, args, OnOpencl());
    EXPECT_TRUE(s.ok()) << s;
  }
}

// D1 and D2 with fewer channels and pixels, and a 5 x 5 kernel, 7 random configs each (one test
// each, so that the shards share them).
class DepthwiseReducedLayerTest : public ::testing::TestWithParam<OpArgs> {};

TEST_P(DepthwiseReducedLayerTest, RandomConfigs) {
  absl::Status s = ops::testing::CheckRandomConfigs(Get(kName), GetParam(), 7, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

INSTANTIATE_TEST_SUITE_P(D1D2K5, DepthwiseReducedLayerTest,
                         ::testing::Values(Depthwise(8, 28, 3, 1, 1), Depthwise(16, 28, 3, 2, 1),
                                           Depthwise(12, 10, 5, 1, 2)));

TEST(DepthwiseConv2dGpuTest, AwkwardShapes) {
  const Template& t = Get(kName);
  OpArgs asym = Depthwise(6, 15, 3, 2, 1);
  asym["pad"] = {0, 1, 1, 0};
  asym["w"] = 11;
  OpArgs dilated = Depthwise(5, 13, 3, 1, 2);
  dilated["dilation"] = {2, 2};
  OpArgs rect = Depthwise(7, 9, 3, 1, 1);
  rect["kw"] = 5;
  rect["pad"] = {1, 2, 1, 2};
  rect["stride"] = {1, 2};
  rect["n"] = 2;
  for (const OpArgs& args : {asym, dilated, rect}) {
    absl::Status s = ops::testing::CheckRandomConfigs(t, args, 2, OnOpencl());
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DepthwiseConv2dGpuTest, FusedTail) {
  OpArgs args = Depthwise(12, 14, 3, 2, 1);
  args["n"] = 2;
  absl::Status s = ops::testing::CheckTailRandomConfigs(Get(kName), args, 3, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

// The shared bytes of a config as the filter counts them: the block's channels' input windows
// and weights, when staged.
int64_t CountedSharedBytes(const OpArgs& args, const search::Config& c) {
  if (c.knob("stage_shared") == 0) return 0;
  auto covered = [&](const char* split, int64_t stride, int64_t k, int64_t dilation) {
    const std::vector<int64_t>& v = c.split(split);
    return (v[1] * v[2] - 1) * stride + (k - 1) * dilation + 1;
  };
  const int64_t k = args["kh"], stride = args["stride"][0], dilation = args["dilation"][0];
  const std::vector<int64_t>& ch = c.split("tile_c");
  return 4 * ch[1] * ch[2] *
         (covered("tile_y", stride, k, dilation) * covered("tile_x", stride, k, dilation) + k * k);
}

int64_t Threads(const search::Config& c) {
  return c.split("tile_c")[1] * c.split("tile_y")[1] * c.split("tile_x")[1];
}

// The fallback is a valid point with at least 32 threads on CUDA, OpenCL and Mali, and samples
// respect the device's limits.
TEST(DepthwiseConv2dGpuTest, FiltersAndFallbackRespectTheLimits) {
  const Template& t = Get(kName);
  for (const char* target : {"cuda -arch=sm_90", "opencl", "opencl -device=mali"}) {
    SCOPED_TRACE(target);
    const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget(target));
    for (const OpArgs& args :
         {Depthwise(32, 112, 3, 1, 1), Depthwise(64, 112, 3, 2, 1), Depthwise(512, 14, 3, 1, 1),
          Depthwise(1024, 7, 3, 1, 1), Depthwise(3, 5, 5, 1, 2)}) {
      SCOPED_TRACE(args.dump());
      absl::StatusOr<search::ConfigSpace> space = t.space(args, facts);
      ASSERT_TRUE(space.ok()) << space.status();
      const search::Config fallback = t.fallback(*space, args, facts);
      EXPECT_TRUE(space->Validate(fallback).ok()) << space->Validate(fallback);
      EXPECT_GE(Threads(fallback), args["h"] == 5 ? 25 : 32) << fallback.ToString();
      std::mt19937_64 rng(3);
      for (const search::Config& c : space->SampleUnique(100, rng)) {
        EXPECT_LE(Threads(c), facts.gpu->max_threads_per_block) << c.ToString();
        EXPECT_LE(CountedSharedBytes(args, c), facts.gpu->shared_memory_per_block) << c.ToString();
      }
    }
  }
}

// What the filter counts is what the kernel allocates.
TEST(DepthwiseConv2dGpuTest, SharedBytesAreThoseTheKernelAllocates) {
  const Template& t = Get(kName);
  const target::Target opencl = OnOpencl().target;
  const target::TargetFacts facts = *target::DescribeTarget(opencl);
  OpArgs dilated = Depthwise(5, 13, 3, 1, 2);
  dilated["dilation"] = {2, 2};
  for (const OpArgs& args : {Depthwise(16, 28, 3, 2, 1), dilated}) {
    const search::ConfigSpace space = *t.space(args, facts);
    std::mt19937_64 rng(4);
    for (const search::Config& c : space.SampleUnique(6, rng)) {
      absl::StatusOr<int64_t> shared = testing::ProgramSharedBytes(t, args, c, opencl);
      ASSERT_TRUE(shared.ok()) << shared.status();
      EXPECT_EQ(*shared, CountedSharedBytes(args, c)) << c.ToString();
    }
  }
}

// 16 x 8 x 8 = 1024 threads per block against PoCL's 256: the filter names it, and compiling it
// anyway gives the backend's error, not a crash.
TEST(DepthwiseConv2dGpuTest, ConfigOverTheThreadLimitIsRefused) {
  const Template& t = Get(kName);
  const OpArgs args = Depthwise(16, 16, 3, 1, 1);
  const target::TargetFacts facts = *target::DescribeTarget(OnOpencl().target);
  const search::ConfigSpace space = *t.space(args, facts);
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs",
                                                           {{"tile_c", {1, 16, 1}},
                                                            {"tile_y", {2, 8, 1}},
                                                            {"tile_x", {2, 8, 1}},
                                                            {"stage_shared", 1},
                                                            {"auto_unroll_max_step", 0},
                                                            {"unroll_explicit", 0}}}});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(space.Validate(*config).message(), HasSubstr("threads_per_block"));
  absl::Status s = ops::testing::CheckConfig(t, args, *config, OnOpencl());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("1024 work-items per work-group"), HasSubstr("limit of 256")));
}

TEST(DepthwiseConv2dGpuTest, ArgumentErrorsNameTheTemplate) {
  const Template& t = Get(kName);
  const target::TargetFacts facts = *target::DescribeTarget(OnOpencl().target);
  auto error = [&](const OpArgs& args) { return t.space(args, facts).status(); };
  for (const OpArgs& args : {SquareConvArgs(8, 9, 8, 3, 1, 1),        // groups 1
                             SquareConvArgs(4, 9, 8, 3, 1, 1, 4)}) {  // channel multiplier 2
    const absl::Status s = error(args);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), AllOf(HasSubstr(kName), HasSubstr("'groups' == 'ic' == 'oc'")));
  }
  const absl::Status too_big = error(Depthwise(4, 3, 5, 1, 0));
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_big.message(),
              AllOf(HasSubstr(kName), HasSubstr("larger than the padded input")));
  const target::TargetFacts cpu =
      *target::DescribeTarget(tessel::testing::ParseTarget("llvm -mcpu=haswell"));
  EXPECT_THAT(t.space(Depthwise(4, 8, 3, 1, 1), cpu).status().message(),
              AllOf(HasSubstr(kName), HasSubstr("needs a GPU target")));
}

}  // namespace
}  // namespace tessel::ops::cuda
