// The strategies of compiler/ops/strategy.h with the x86 templates linked: which template serves
// which operator on which target, and the errors for targets and operators nothing serves.
#include "compiler/ops/strategy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/testing/test_target.h"

namespace tessel::ops {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

target::TargetFacts Facts(const std::string& text) {
  absl::StatusOr<target::TargetFacts> f =
      target::DescribeTarget(tessel::testing::ParseTarget(text));
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : target::TargetFacts{};
}

OpArgs Conv(int64_t c, int64_t hw, int64_t k, int64_t stride, int64_t groups = 1) {
  return {{"n", 1},
          {"ic", c},
          {"h", hw},
          {"w", hw},
          {"oc", c},
          {"kh", k},
          {"kw", k},
          {"stride", {stride, stride}},
          {"pad", {k / 2, k / 2, k / 2, k / 2}},
          {"dilation", {1, 1}},
          {"groups", groups},
          {"dtype", "float32"}};
}

std::string Chosen(const std::string& op, const OpArgs& args, const std::string& target) {
  absl::StatusOr<const Template*> t = SelectTemplate(op, args, Facts(target));
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? (*t)->name : "";
}

TEST(StrategyTest, CpuChoosesAmongTheCpuTemplates) {
  EXPECT_EQ(Chosen("conv2d", Conv(64, 56, 3, 1), "llvm"), "conv2d_winograd.x86");
  EXPECT_EQ(Chosen("conv2d", Conv(32, 56, 3, 1), "llvm"), "conv2d_nchwc.x86");
  EXPECT_EQ(Chosen("conv2d", Conv(64, 56, 3, 2), "llvm"), "conv2d_nchwc.x86");
  EXPECT_EQ(Chosen("conv2d", Conv(64, 56, 3, 1, 64), "llvm"), "depthwise_conv2d_nchwc.x86");
  EXPECT_EQ(Chosen("conv2d", Conv(64, 56, 3, 1, 4), "llvm"), "conv2d_nchw.x86");
  EXPECT_EQ(Chosen("relu", {{"shape", {4, 8}}, {"dtype", "float32"}}, "llvm"), "relu.x86");
  // The multi-level tiling templates are tuned by name only, never chosen untuned.
  EXPECT_EQ(Chosen("dense", {{"m", 1}, {"n", 64}, {"k", 32}, {"bias", true}}, "llvm"),
            "dense_pack.x86");
  EXPECT_EQ(Chosen("batch_matmul", {{"batch", 2}, {"m", 8}, {"n", 8}, {"k", 8}}, "llvm"),
            "batch_matmul_tiled.x86");
  // An AArch64 CPU is a cpu too: until it has a strategy of its own, the cpu one serves it.
  EXPECT_EQ(Chosen("conv2d", Conv(64, 56, 3, 1), "llvm -mtriple=aarch64-linux-gnu"),
            "conv2d_winograd.x86");
}

TEST(StrategyTest, TemplatesAreRegisteredPerKey) {
  EXPECT_THAT(StrategyKeys(), ::testing::Contains("cpu"));
  std::vector<std::string> names;
  for (const Template* t : TemplatesFor("cpu", "conv2d")) names.push_back(t->name);
  EXPECT_THAT(names, ElementsAre("conv2d_multilevel.x86", "conv2d_nchw.x86", "conv2d_nchwc.x86",
                                 "conv2d_winograd.x86", "depthwise_conv2d_nchwc.x86"));
  EXPECT_TRUE(TemplatesFor("cuda", "conv2d").empty());
  for (const Template* t : AllTemplates()) EXPECT_FALSE(TemplateKey(*t).empty()) << t->name;
}

TEST(StrategyTest, ATargetWithoutStrategyNamesOperatorAndTarget) {
  absl::StatusOr<const Template*> t =
      SelectTemplate("conv2d", Conv(64, 56, 3, 1), Facts("cuda -arch=sm_90"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(absl::IsUnimplemented(t.status()));
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("no template computes operator 'conv2d' for target 'cuda -arch=sm_90'"));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("the target's keys are cuda, gpu"));
  EXPECT_FALSE(SelectTemplate("dense", {}, Facts("opencl -device=mali")).ok());
}

TEST(StrategyTest, AnOperatorWithoutTemplateNamesOperatorAndTarget) {
  absl::StatusOr<const Template*> t = SelectTemplate("fft", {}, Facts("llvm -mcpu=haswell"));
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("no template computes operator 'fft' for target 'llvm -mcpu=haswell'"));
  // Arguments the strategy reads are checked, the key named.
  absl::StatusOr<const Template*> bad = SelectTemplate("conv2d", {{"n", 1}}, Facts("llvm"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("conv2d"));
}

TEST(StrategyDeathTest, AKeyRegisteredTwiceIsABug) {
  EXPECT_DEATH(RegisterStrategy("cpu",
                                [](const std::string&, const OpArgs&, const target::TargetFacts&)
                                    -> absl::StatusOr<std::string> { return "x"; }),
               "strategy for key cpu registered twice");
}

}  // namespace
}  // namespace tessel::ops
