// depthwise_conv2d.mali against libtorch on `opencl -device=mali` (run on PoCL here, with the
// Mali limits enforced by the OpenCL backend): the fallback and 20 random configs of a reduced
// MobileNet layer and of an odd strided one, awkward fallbacks, a fused tail, argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

const Template& Depthwise() {
  absl::StatusOr<const Template*> t = FindTemplate("depthwise_conv2d.mali");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Depth(int64_t c, int64_t h, int64_t w, int64_t k, std::vector<int64_t> stride,
             std::vector<int64_t> pad, int64_t n = 1) {
  return {{"n", n},  {"ic", c}, {"h", h},           {"w", w},     {"oc", c},
          {"kh", k}, {"kw", k}, {"stride", stride}, {"pad", pad}, {"groups", c}};
}

testing::CheckOptions Mali() {
  testing::CheckOptions o;
  o.target = tessel::testing::ParseTarget("opencl -device=mali");
  return o;
}

const OpArgs kMobileNet = Depth(32, 28, 28, 3, {1, 1}, {1, 1, 1, 1});
const OpArgs kOdd = Depth(7, 15, 13, 3, {2, 2}, {1, 0, 1, 2}, 2);

TEST(DepthwiseConv2dMaliTest, MobileNetRandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(Depthwise(), kMobileNet, 20, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DepthwiseConv2dMaliTest, OddStridedRandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(Depthwise(), kOdd, 20, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DepthwiseConv2dMaliTest, AwkwardFallbacks) {
  for (const OpArgs& args :
       {Depth(1, 1, 1, 1, {1, 1}, {0, 0, 0, 0}), Depth(3, 5, 9, 5, {1, 1}, {2, 2, 2, 2}),
        Depth(16, 14, 14, 3, {2, 2}, {1, 1, 1, 1})}) {
    absl::Status s = testing::CheckFallback(Depthwise(), args, Mali());
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(DepthwiseConv2dMaliTest, FusedTail) {
  absl::Status s = testing::CheckTailRandomConfigs(Depthwise(), kOdd, 3, Mali());
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DepthwiseConv2dMaliTest, ArgumentErrors) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(Mali().target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  OpArgs dense_conv = kMobileNet;
  dense_conv["groups"] = 1;
  absl::StatusOr<search::ConfigSpace> s = Depthwise().space(dense_conv, *facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("depthwise_conv2d.mali"));
  EXPECT_THAT(s.status().message(), HasSubstr("'groups' == 'ic' == 'oc'"));
  s = Depthwise().space(kMobileNet, target::TargetFacts());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("is not a GPU"));
}

}  // namespace
}  // namespace tessel::ops
