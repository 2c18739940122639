// conv2d_winograd.gpu against libtorch on OpenCL (PoCL, on this machine's CPU): the fallback on
// Table 2's 3x3 stride-1 layers, random configs on reduced and awkward shapes, a fused tail, the
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

constexpr char kName[] = "conv2d_winograd.gpu";

// Winograd's transforms round more than the direct sum: F(4x4) multiplies by up to 16 (1/2, -2
// as points) before the products, the 3 x 3 x ic sums of up to 512 channels.
ops::testing::CheckOptions Options() {
  ops::testing::CheckOptions o = OnOpencl();
  o.atol = 5e-3;
  return o;
}

TEST(Conv2dWinogradGpuTest, Table2LayersFallback) {
  const Template& t = Get(kName);
  for (const OpArgs& args : {SquareConvArgs(64, 56, 64, 3, 1, 1),      // C2
                             SquareConvArgs(128, 28, 128, 3, 1, 1),    // C6
                             SquareConvArgs(512, 7, 512, 3, 1, 1)}) {  // C12
    absl::Status s = ops::testing::CheckFallback(t, args, Options());
    EXPECT_TRUE(s.ok()) << s;
  }
}

OpArgs Odd() {
  OpArgs odd = SquareConvArgs(3, 9, 7, 3, 1, 1);
  odd["w"] = 11;
  odd["pad"] = {1, 0, 2, 1};
  odd["n"] = 2;
  return odd;
}

// A reduced C6, an odd layer (asymmetric padding, width != height, batch 2) and a tiny one
// without padding, 7 random configs each (one test each, so that the shards share them).
class Conv2dWinogradShapeTest : public ::testing::TestWithParam<OpArgs> {};

TEST_P(Conv2dWinogradShapeTest, RandomConfigs) {
  absl::Status s = ops::testing::CheckRandomConfigs(Get(kName), GetParam(), 7, Options());
  EXPECT_TRUE(s.ok()) << s;
}

INSTANTIATE_TEST_SUITE_P(ReducedOddTiny, Conv2dWinogradShapeTest,
                         ::testing::Values(SquareConvArgs(16, 10, 16, 3, 1, 1), Odd(),
                                           SquareConvArgs(3, 5, 4, 3, 1, 0)));

TEST(Conv2dWinogradGpuTest, FusedTail) {
  absl::Status s = ops::testing::CheckTailRandomConfigs(Get(kName), Odd(), 2, Options());
  EXPECT_TRUE(s.ok()) << s;
}

// The shared bytes of a config as the filter counts them: V for tile_p tiles and U for the
// block's channels, rc input channels each.
int64_t CountedSharedBytes(const search::Config& c) {
  const int64_t alpha = c.knob("tile_size") + 2;
  const std::vector<int64_t>& oc = c.split("tile_oc");
  return 4 * alpha * alpha * c.split("tile_rc")[1] * (c.knob("tile_p") + oc[1] * oc[2]);
}

// Sampled configs respect the device's limits and the fallback is a valid point, on CUDA,
// OpenCL and Mali.
TEST(Conv2dWinogradGpuTest, FiltersAndFallbackRespectTheLimits) {
  const Template& t = Get(kName);
  for (const char* target : {"cuda -arch=sm_90", "opencl", "opencl -device=mali"}) {
    SCOPED_TRACE(target);
    const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget(target));
    for (const OpArgs& args :
         {SquareConvArgs(64, 56, 64, 3, 1, 1), SquareConvArgs(512, 7, 512, 3, 1, 1), Odd()}) {
      SCOPED_TRACE(args.dump());
      absl::StatusOr<search::ConfigSpace> space = t.space(args, facts);
      ASSERT_TRUE(space.ok()) << space.status();
      const search::Config fallback = t.fallback(*space, args, facts);
      EXPECT_TRUE(space->Validate(fallback).ok()) << space->Validate(fallback);
      std::mt19937_64 rng(5);
      const std::vector<search::Config> sample = space->SampleUnique(100, rng);
      EXPECT_EQ(sample.size(), 100u);
      for (const search::Config& c : sample) {
        EXPECT_LE(CountedSharedBytes(c), facts.gpu->shared_memory_per_block) << c.ToString();
        EXPECT_LE(c.split("tile_oc")[1] * c.knob("tile_p"), facts.gpu->max_threads_per_block)
            << c.ToString();
      }
    }
  }
}

// What the filter counts is what the kernel allocates.
TEST(Conv2dWinogradGpuTest, SharedBytesAreThoseTheKernelAllocates) {
  const Template& t = Get(kName);
  const target::Target opencl = OnOpencl().target;
  const target::TargetFacts facts = *target::DescribeTarget(opencl);
  const search::ConfigSpace space = *t.space(Odd(), facts);
  std::mt19937_64 rng(9);
  for (const search::Config& c : space.SampleUnique(3, rng)) {
    absl::StatusOr<int64_t> shared = testing::ProgramSharedBytes(t, Odd(), c, opencl);
    ASSERT_TRUE(shared.ok()) << shared.status();
    EXPECT_EQ(*shared, CountedSharedBytes(c)) << c.ToString();
  }
}

TEST(Conv2dWinogradGpuTest, ArgumentErrorsNameTheTemplate) {
  const Template& t = Get(kName);
  const target::TargetFacts facts = *target::DescribeTarget(OnOpencl().target);
  OpArgs dilated = SquareConvArgs(4, 9, 4, 3, 1, 2);
  dilated["dilation"] = {2, 2};
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {SquareConvArgs(4, 9, 4, 5, 1, 2), "'kh' and 'kw' must be 3"},
      {SquareConvArgs(4, 9, 4, 3, 2, 1), "'stride' must be [1, 1]"},
      {dilated, "'dilation' must be [1, 1]"},
      {SquareConvArgs(4, 9, 4, 3, 1, 1, 2), "'groups' must be 1"},
      {SquareConvArgs(4, 1, 4, 3, 1, 0), "larger than the padded input"},
  };
  for (const auto& [args, what] : cases) {
    const absl::Status s = t.space(args, facts).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << what;
    EXPECT_THAT(s.message(), AllOf(HasSubstr(kName), HasSubstr(what)));
  }
}

}  // namespace
}  // namespace tessel::ops::cuda
