// conv2d_transpose.gpu against libtorch on OpenCL (PoCL, on this machine's CPU): the fallback on
// DCGAN's generator layers, random configs on reduced and awkward shapes, a fused tail, and
// argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ops/cuda/conv2d_direct_schedule.h"
#include "compiler/ops/cuda/conv2d_gpu_testing.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops::cuda {
namespace {

using ::testing::AllOf;
using testing::Get;
using ::testing::HasSubstr;
using testing::OnOpencl;

constexpr char kName[] = "conv2d_transpose.gpu";

OpArgs Transpose(int64_t ic, int64_t hw, int64_t oc, int64_t k, int64_t s, int64_t p) {
  return {{"n", 1},
          {"ic", ic},
          {"h", hw},
          {"w", hw},
          {"oc", oc},
          {"kh", k},
          {"kw", k},
          {"stride", {s, s}},
          {"pad", {p, p, p, p}},
          {"output_padding", {0, 0}}};
}

TEST(Conv2dTransposeGpuTest, DcganLayersFallback) {
  const Template& t = Get(kName);
  for (const OpArgs& args : {Transpose(512, 4, 256, 4, 2, 1), Transpose(128, 16, 64, 4, 2, 1),
                             Transpose(64, 32, 3, 4, 2, 1)}) {
    absl::Status s = ops::testing::CheckFallback(t, args, OnOpencl());
    EXPECT_TRUE(s.ok()) << s;
  }
}

// A reduced DCGAN layer, an odd one (asymmetric padding, output padding, batch 2) and a
// stride-1 one, 7 random configs each (one test each, so that the shards share them).
OpArgs OddTranspose() {
  OpArgs odd = Transpose(6, 5, 10, 3, 2, 1);
  odd["pad"] = {0, 1, 2, 0};
  odd["output_padding"] = {1, 0};
  odd["n"] = 2;
  return odd;
}

class Conv2dTransposeShapeTest : public ::testing::TestWithParam<OpArgs> {};

TEST_P(Conv2dTransposeShapeTest, RandomConfigs) {
  absl::Status s = ops::testing::CheckRandomConfigs(Get(kName), GetParam(), 7, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

INSTANTIATE_TEST_SUITE_P(ReducedOddStride1, Conv2dTransposeShapeTest,
                         ::testing::Values(Transpose(16, 4, 8, 4, 2, 1), OddTranspose(),
                                           Transpose(5, 7, 7, 3, 1, 0)));

TEST(Conv2dTransposeGpuTest, FusedTail) {
  absl::Status s =
      ops::testing::CheckTailRandomConfigs(Get(kName), Transpose(8, 6, 6, 4, 2, 1), 3, OnOpencl());
  EXPECT_TRUE(s.ok()) << s;
}

// The fallback is a valid point on CUDA, OpenCL and Mali; on OpenCL, the shared bytes the
// filter counts (those of the equivalent convolution) are those the kernel allocates.
TEST(Conv2dTransposeGpuTest, FallbackIsValidOnEveryGpuAndSharedBytesAsCounted) {
  const Template& t = Get(kName);
  for (const char* target : {"cuda -arch=sm_90", "opencl", "opencl -device=mali"}) {
    SCOPED_TRACE(target);
    const target::Target parsed = tessel::testing::ParseTarget(target);
    const target::TargetFacts facts = *target::DescribeTarget(parsed);
    for (const OpArgs& args : {Transpose(512, 4, 256, 4, 2, 1), Transpose(128, 16, 64, 4, 2, 1),
                               Transpose(64, 32, 3, 4, 2, 1), Transpose(100, 1, 512, 4, 1, 0)}) {
      absl::StatusOr<search::ConfigSpace> space = t.space(args, facts);
      ASSERT_TRUE(space.ok()) << space.status();
      const search::Config fallback = t.fallback(*space, args, facts);
      EXPECT_TRUE(space->Validate(fallback).ok()) << space->Validate(fallback);
      if (std::string(target) != "opencl") continue;
      const nn::Conv2dAttrs conv = nn::ReadConv2dTransposeAttrs(kName, args)->EquivalentConv();
      std::mt19937_64 rng(2);
      for (const search::Config& c : space->SampleUnique(4, rng)) {
        absl::StatusOr<int64_t> shared = testing::ProgramSharedBytes(t, args, c, parsed);
        ASSERT_TRUE(shared.ok()) << shared.status();
        EXPECT_EQ(*shared, Conv2dDirectSharedBytes(conv, ReadConv2dDirectKnobs(c))) << c.ToString();
      }
    }
  }
}

TEST(Conv2dTransposeGpuTest, ArgumentErrorsNameTheTemplate) {
  const Template& t = Get(kName);
  const target::TargetFacts facts = *target::DescribeTarget(OnOpencl().target);
  OpArgs big_pad = Transpose(4, 5, 4, 3, 2, 3);
  EXPECT_THAT(t.space(big_pad, facts).status().message(),
              AllOf(HasSubstr(kName), HasSubstr("below the kernel size")));
  OpArgs big_output_pad = Transpose(4, 5, 4, 3, 2, 1);
  big_output_pad["output_padding"] = {2, 0};
  const absl::Status s = t.space(big_output_pad, facts).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr(kName), HasSubstr("'output_padding'")));
  const target::TargetFacts cpu =
      *target::DescribeTarget(tessel::testing::ParseTarget("llvm -mcpu=haswell"));
  EXPECT_THAT(t.space(Transpose(4, 5, 4, 3, 2, 1), cpu).status().message(),
              AllOf(HasSubstr(kName), HasSubstr("needs a GPU target")));
}

}  // namespace
}  // namespace tessel::ops::cuda
