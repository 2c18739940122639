// conv2d_direct.gpu and conv2d_grouped.gpu against libtorch on OpenCL (PoCL, on this machine's
// CPU): the fallback on Table 2 layers, random configs on reduced and awkward shapes, fused
// tails, the validity filters, and argument errors. (PoCL compiles each kernel for about a second
// or more, so the random configs run on reduced layers.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ops/cuda/conv2d_direct_schedule.h"
#include "compiler/ops/cuda/conv2d_gpu_testing.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/testing/conv_args.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops::cuda {
namespace {

using ops::testing::SquareConvArgs;
using ::testing::AllOf;
using testing::Get;
using ::testing::HasSubstr;
using testing::OnOpencl;

constexpr char kName[] = "conv2d_direct.gpu";
constexpr char kGrouped[] = "conv2d_grouped.gpu";

TEST(Conv2dDirectGpuTest, Table2LayersFallback) {
  const Template& t = Get(kName);
  for (const OpArgs& args : {SquareConvArgs(3, 224, 64, 7, 2, 3),       // C1
                             SquareConvArgs(128, 28, 128, 3, 1, 1),     // C6
                             SquareConvArgs(256, 14, 512, 1, 2, 0)}) {  // C11
    absl::Status s = ops::testing::CheckFallback(t, args, OnOpencl());
    EXPECT_TRUE(s.ok()) << s;
  }
}

// C1, C6 and C11 with fewer channels and pixels, 7 random configs each (one test each, so
// that the shards share them).
class Conv2dDirectReducedLayerTest : public ::testing::TestWithParam<OpArgs> {};

TEST_P(Conv2dDirectReducedLayerTest, RandomConfigs) {
  absl::Status s = ops::testing::CheckRandomConfigs(Get(kName), GetParam(), 7, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

INSTANTIATE_TEST_SUITE_P(C1C6C11, Conv2dDirectReducedLayerTest,
                         ::testing::Values(SquareConvArgs(3, 32, 16, 7, 2, 3),
                                           SquareConvArgs(16, 14, 32, 3, 1, 1),
                                           SquareConvArgs(32, 14, 64, 1, 2, 0)));

TEST(Conv2dDirectGpuTest, AwkwardShapes) {
  const Template& t = Get(kName);
  OpArgs asym = SquareConvArgs(5, 13, 7, 3, 1, 0);
  asym["w"] = 17;
  asym["pad"] = {1, 0, 2, 1};
  OpArgs dilated = SquareConvArgs(6, 11, 10, 3, 1, 2);
  dilated["dilation"] = {2, 2};
  OpArgs rect = SquareConvArgs(4, 9, 6, 3, 2, 1);
  rect["kw"] = 5;
  rect["stride"] = {1, 2};
  rect["n"] = 2;
  for (const OpArgs& args : {asym, dilated, rect}) {
    absl::Status s = ops::testing::CheckRandomConfigs(t, args, 2, OnOpencl());
    EXPECT_TRUE(s.ok()) << s;
  }
  for (const OpArgs& args :
       {SquareConvArgs(13, 7, 11, 1, 1, 0), SquareConvArgs(3, 1, 5, 1, 1, 0)}) {
    absl::Status s = ops::testing::CheckFallback(t, args, OnOpencl());
    EXPECT_TRUE(s.ok()) << s;
  }
}

// ResNeXt's grouped 3 x 3 layer (32 groups of 4 channels) with the fallback; a reduced, an odd
// and a strided 1 x 1 grouped layer (batch 2) with 7 random configs each, the odd one with a
// fused tail too.
TEST(Conv2dGroupedGpuTest, ResnextLayerFallback) {
  absl::Status s = ops::testing::CheckFallback(
      Get(kGrouped), SquareConvArgs(128, 28, 128, 3, 1, 1, 32), OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

OpArgs OddGrouped() {
  OpArgs odd = SquareConvArgs(12, 9, 8, 3, 2, 1, 4);
  odd["pad"] = {0, 1, 2, 1};
  return odd;
}

TEST(Conv2dGroupedGpuTest, ReducedRandomConfigs) {
  absl::Status s = ops::testing::CheckRandomConfigs(
      Get(kGrouped), SquareConvArgs(16, 10, 32, 3, 1, 1, 4), 7, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dGroupedGpuTest, OddRandomConfigsAndTail) {
  absl::Status s = ops::testing::CheckRandomConfigs(Get(kGrouped), OddGrouped(), 7, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
  s = ops::testing::CheckTailRandomConfigs(Get(kGrouped), OddGrouped(), 1, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dGroupedGpuTest, PointwiseStridedRandomConfigs) {
  OpArgs args = SquareConvArgs(8, 12, 16, 1, 2, 0, 2);
  args["n"] = 2;
  absl::Status s = ops::testing::CheckRandomConfigs(Get(kGrouped), args, 7, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dDirectGpuTest, FusedTail) {
  OpArgs args = SquareConvArgs(8, 10, 12, 3, 2, 1);
  args["n"] = 2;
  absl::Status s = ops::testing::CheckTailRandomConfigs(Get(kName), args, 3, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

// Sampled configs respect the device's limits and the fallback is a valid point, on CUDA,
// OpenCL and Mali; the shared bytes the filter counts are those the kernel allocates.
TEST(Conv2dDirectGpuTest, FiltersAndFallbackRespectTheLimits) {
  for (const char* target : {"cuda -arch=sm_90", "opencl", "opencl -device=mali"}) {
    SCOPED_TRACE(target);
    const target::Target parsed = tessel::testing::ParseTarget(target);
    const target::TargetFacts facts = *target::DescribeTarget(parsed);
    for (const OpArgs& args :
         {SquareConvArgs(3, 224, 64, 7, 2, 3), SquareConvArgs(128, 28, 128, 3, 1, 1),
          SquareConvArgs(256, 14, 512, 1, 2, 0), SquareConvArgs(512, 7, 512, 3, 1, 1),
          SquareConvArgs(128, 28, 128, 3, 1, 1, 32), SquareConvArgs(12, 9, 8, 3, 2, 1, 4)}) {
      const Template& t = Get(args["groups"] == 1 ? kName : kGrouped);
      SCOPED_TRACE(args.dump());
      const nn::Conv2dAttrs a = *nn::ReadConv2dAttrs(kName, args);
      absl::StatusOr<search::ConfigSpace> space = t.space(args, facts);
      ASSERT_TRUE(space.ok()) << space.status();
      const search::Config fallback = t.fallback(*space, args, facts);
      EXPECT_TRUE(space->Validate(fallback).ok()) << space->Validate(fallback);
      const Conv2dDirectKnobs f = ReadConv2dDirectKnobs(fallback);
      EXPECT_GE(f.threads(), 32) << fallback.ToString();
      std::mt19937_64 rng(7);
      const std::vector<search::Config> sample = space->SampleUnique(200, rng);
      ASSERT_GE(sample.size(), 8u);
      for (const search::Config& c : sample) {
        const Conv2dDirectKnobs k = ReadConv2dDirectKnobs(c);
        EXPECT_LE(k.threads(), facts.gpu->max_threads_per_block) << c.ToString();
        EXPECT_LE(k.f[2], facts.gpu->max_block_extents[2]) << c.ToString();
        EXPECT_LE(Conv2dDirectSharedBytes(a, k), facts.gpu->shared_memory_per_block)
            << c.ToString();
      }
      if (std::string(target) != "opencl") continue;
      for (size_t i = 0; i < 8; ++i) {
        absl::StatusOr<int64_t> shared = testing::ProgramSharedBytes(t, args, sample[i], parsed);
        ASSERT_TRUE(shared.ok()) << shared.status();
        EXPECT_EQ(*shared, Conv2dDirectSharedBytes(a, ReadConv2dDirectKnobs(sample[i])))
            << sample[i].ToString();
      }
    }
  }
}

// 16 x 8 x 8 = 1024 threads per block against PoCL's 256: the filter names it, and compiling it
// anyway gives the backend's error, not a crash.
TEST(Conv2dDirectGpuTest, ConfigOverTheThreadLimitIsRefused) {
  const Template& t = Get(kName);
  const OpArgs args = SquareConvArgs(8, 16, 32, 3, 1, 1);
  const target::TargetFacts facts = *target::DescribeTarget(OnOpencl().target);
  const search::ConfigSpace space = *t.space(args, facts);
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs",
                                                           {{"tile_f", {1, 1, 16, 2}},
                                                            {"tile_y", {2, 1, 8, 1}},
                                                            {"tile_x", {2, 1, 8, 1}},
                                                            {"tile_rc", {2, 4}},
                                                            {"tile_ry", {1, 3}},
                                                            {"tile_rx", {1, 3}},
                                                            {"auto_unroll_max_step", 0},
                                                            {"unroll_explicit", 0}}}});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(space.Validate(*config).message(), HasSubstr("threads_per_block"));
  absl::Status s = ops::testing::CheckConfig(t, args, *config, OnOpencl());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("1024 work-items per work-group"), HasSubstr("limit of 256")));
}

TEST(Conv2dDirectGpuTest, ArgumentErrorsNameTheTemplate) {
  const Template& t = Get(kName);
  const target::TargetFacts facts = *target::DescribeTarget(OnOpencl().target);
  auto error = [&](const OpArgs& args) { return t.space(args, facts).status(); };
  const absl::Status grouped = error(SquareConvArgs(8, 9, 8, 3, 1, 1, 2));
  EXPECT_EQ(grouped.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(grouped.message(), AllOf(HasSubstr(kName), HasSubstr("'groups' == 1")));
  const absl::Status too_big = error(SquareConvArgs(4, 3, 4, 5, 1, 0));
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_big.message(),
              AllOf(HasSubstr(kName), HasSubstr("larger than the padded input")));
  OpArgs missing = SquareConvArgs(4, 8, 4, 3, 1, 1);
  missing.erase("oc");
  EXPECT_THAT(error(missing).message(), AllOf(HasSubstr(kName), HasSubstr("oc")));
  for (const OpArgs& args :
       {SquareConvArgs(8, 9, 8, 3, 1, 1), SquareConvArgs(8, 9, 8, 3, 1, 1, 8)}) {
    const absl::Status s = Get(kGrouped).space(args, facts).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), AllOf(HasSubstr(kGrouped), HasSubstr("'groups' > 1")));
  }
  const target::TargetFacts cpu =
      *target::DescribeTarget(tessel::testing::ParseTarget("llvm -mcpu=haswell"));
  const absl::Status on_cpu = t.space(SquareConvArgs(4, 8, 4, 3, 1, 1), cpu).status();
  EXPECT_EQ(on_cpu.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(on_cpu.message(), AllOf(HasSubstr(kName), HasSubstr("needs a GPU target")));
}

}  // namespace
}  // namespace tessel::ops::cuda
