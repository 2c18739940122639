// conv2d_spatial_pack.mali against libtorch on `opencl -device=mali` (run on PoCL here, with the
// Mali limits enforced by the OpenCL backend): the fallback and 20 random configs of reduced
// C2-like layers (ResNet-18's 3x3, 64 -> 64 at 56x56) and of an odd layer (channels not a multiple
// of the vectors, strides, asymmetric padding, dilation), a fused tail, no local memory,
// argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/ops/testing/tail_check.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

const Template& SpatialPack() {
  absl::StatusOr<const Template*> t = FindTemplate("conv2d_spatial_pack.mali");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Conv(int64_t ic, int64_t h, int64_t w, int64_t oc, int64_t k, std::vector<int64_t> stride,
            std::vector<int64_t> pad, std::vector<int64_t> dilation = {1, 1}, int64_t n = 1) {
  return {{"n", n},     {"ic", ic}, {"h", h},           {"w", w},     {"oc", oc},
          {"kh", k},    {"kw", k},  {"stride", stride}, {"pad", pad}, {"dilation", dilation},
          {"groups", 1}};
}

testing::CheckOptions Mali() {
  testing::CheckOptions o;
  o.atol = 2e-3;
  o.rtol = 2e-3;
  o.target = tessel::testing::ParseTarget("opencl -device=mali");
  return o;
}

// C2's channels at a quarter of its pixels, and its pixels at a quarter of its channels.
const OpArgs kC2Channels = Conv(64, 28, 28, 64, 3, {1, 1}, {1, 1, 1, 1});
const OpArgs kC2Pixels = Conv(16, 56, 56, 16, 3, {1, 1}, {1, 1, 1, 1});
const OpArgs kOdd = Conv(5, 13, 11, 10, 3, {2, 1}, {1, 0, 2, 1}, {1, 2}, 2);

TEST(Conv2dSpatialPackMaliTest, C2ChannelsRandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(SpatialPack(), kC2Channels, 20, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dSpatialPackMaliTest, C2PixelsRandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(SpatialPack(), kC2Pixels, 20, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dSpatialPackMaliTest, OddLayerRandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(SpatialPack(), kOdd, 20, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dSpatialPackMaliTest, AwkwardFallbacks) {
  for (const OpArgs& args :
       {Conv(3, 9, 9, 2, 3, {1, 1}, {1, 1, 1, 1}), Conv(1, 1, 1, 1, 1, {1, 1}, {0, 0, 0, 0}),
        Conv(8, 7, 5, 12, 5, {2, 2}, {2, 2, 2, 2}), Conv(4, 6, 6, 9, 1, {1, 1}, {0, 0, 0, 0})}) {
    absl::Status s = testing::CheckFallback(SpatialPack(), args, Mali());
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(Conv2dSpatialPackMaliTest, FusedTail) {
  absl::Status s = testing::CheckTailRandomConfigs(SpatialPack(), kOdd, 3, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

// The Mali schedules keep their tiles in registers: no local ("shared") memory, float4 code.
TEST(Conv2dSpatialPackMaliTest, NoLocalMemoryAndFloat4) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(Mali().target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<Instantiated> fallback = InstantiateFallback(SpatialPack(), kC2Channels, *facts);
  ASSERT_TRUE(fallback.ok()) << fallback.status();
  absl::StatusOr<ir::PrimFunc> f =
      transforms::Lower(fallback->program.schedule, fallback->program.args, "op");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string ir = ir::ToString(*f);
  EXPECT_THAT(ir, ::testing::Not(HasSubstr("\"shared\"")));
  // The tile's channels update as one 4-lane vector from 4 packed weights.
  EXPECT_THAT(ir, HasSubstr("conv[ramp("));
  EXPECT_THAT(ir, HasSubstr("kernel_vec[ramp("));
}

TEST(Conv2dSpatialPackMaliTest, ArgumentErrors) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(Mali().target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  OpArgs grouped = kC2Channels;
  grouped["groups"] = 2;
  absl::StatusOr<search::ConfigSpace> s = SpatialPack().space(grouped, *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("conv2d_spatial_pack.mali"));
  EXPECT_THAT(s.status().message(), HasSubstr("'groups' = 1"));
  OpArgs no_oc = kC2Channels;
  no_oc.erase("oc");
  s = SpatialPack().space(no_oc, *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'oc'"));
  s = SpatialPack().space(kC2Channels, target::TargetFacts());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("is not a GPU"));
}

}  // namespace
}  // namespace tessel::ops
