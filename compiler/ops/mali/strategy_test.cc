// The strategies of the GPU keys with the GPU and Mali templates linked: `gpu` serves cuda and
// opencl targets; `mali` serves `opencl -device=mali` with its own templates and defers every other
// operator to `gpu` (strategy.h's NotFound); the errors for operators nothing serves.
#include "compiler/ops/strategy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/conv_args.h"
#include "compiler/testing/test_target.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;
using testing::SquareConvArgs;

target::TargetFacts Facts(const std::string& text) {
  absl::StatusOr<target::TargetFacts> f =
      target::DescribeTarget(tessel::testing::ParseTarget(text));
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : target::TargetFacts{};
}

std::string Chosen(const std::string& op, const OpArgs& args, const std::string& target) {
  absl::StatusOr<const Template*> t = SelectTemplate(op, args, Facts(target));
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? (*t)->name : "";
}

const OpArgs kDense = {{"m", 1}, {"n", 1000}, {"k", 512}};
const OpArgs kRelu = {{"shape", {4, 8}}};

TEST(GpuStrategyTest, CudaAndOpenclChooseTheGpuTemplates) {
  for (const std::string target : {"cuda -arch=sm_90", "opencl"}) {
    SCOPED_TRACE(target);
    EXPECT_EQ(Chosen("conv2d", SquareConvArgs(64, 56, 64, 3, 1, 1), target), "conv2d_direct.gpu");
    EXPECT_EQ(Chosen("conv2d", SquareConvArgs(64, 56, 64, 3, 1, 1, 64), target),
              "depthwise_conv2d.gpu");
    EXPECT_EQ(Chosen("dense", kDense, target), "dense.gpu");
    EXPECT_EQ(Chosen("relu", kRelu, target), "relu.gpu");
  }
}

TEST(GpuStrategyTest, MaliTakesItsOwnTemplatesAndDefersTheRestToGpu) {
  const std::string mali = "opencl -device=mali";
  EXPECT_EQ(Chosen("conv2d", SquareConvArgs(64, 56, 64, 3, 1, 1), mali),
            "conv2d_spatial_pack.mali");
  EXPECT_EQ(Chosen("conv2d", SquareConvArgs(64, 56, 64, 3, 1, 1, 64), mali),
            "depthwise_conv2d.mali");
  EXPECT_EQ(Chosen("dense", kDense, mali), "dense.mali");
  EXPECT_EQ(Chosen("relu", kRelu, mali), "relu.gpu");
  EXPECT_EQ(
      Chosen("max_pool2d",
             {{"n", 1}, {"c", 8}, {"h", 16}, {"w", 16}, {"kh", 2}, {"kw", 2}, {"stride", {2, 2}}},
             mali),
      "max_pool2d.gpu");
}

TEST(GpuStrategyTest, AnOperatorWithoutAGpuTemplateIsNamedWithTheTarget) {
  const OpArgs bitserial = {{"m", 1}, {"n", 8}, {"k", 64}};
  for (const std::string target : {"opencl", "opencl -device=mali"}) {
    absl::StatusOr<const Template*> t = SelectTemplate("bitserial_dense", bitserial, Facts(target));
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(t.status().message(), HasSubstr("'bitserial_dense'"));
    EXPECT_THAT(t.status().message(), HasSubstr(target));
  }
}

}  // namespace
}  // namespace tessel::ops
