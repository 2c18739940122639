#include "compiler/ops/op_args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

TEST(ArgReaderTest, ReadsEachKind) {
  const OpArgs args = {{"n", 2}, {"pad", {1, 0, 1, 0}}, {"eps", 1e-5}, {"layout", "NCHW"},
                       {"ceil", true}};
  ArgReader r("test_op", args);
  EXPECT_EQ(*r.Int("n"), 2);
  EXPECT_EQ(*r.IntOr("groups", 1), 1);
  EXPECT_EQ(*r.Ints("pad", 4, 0), (std::vector<int64_t>{1, 0, 1, 0}));
  EXPECT_EQ(*r.IntsOr("stride", 2, {1, 1}), (std::vector<int64_t>{1, 1}));
  EXPECT_DOUBLE_EQ(*r.Float("eps"), 1e-5);
  EXPECT_DOUBLE_EQ(*r.FloatOr("alpha", 0.5), 0.5);
  EXPECT_EQ(*r.String("layout"), "NCHW");
  EXPECT_EQ(*r.StringOr("dst", "NCHW8c"), "NCHW8c");
  EXPECT_TRUE(*r.BoolOr("ceil", false));
  EXPECT_EQ(*r.Ints("pad", -1, 0), (std::vector<int64_t>{1, 0, 1, 0}));
}

TEST(ArgReaderTest, ErrorsNameTheOperatorAndKey) {
  const OpArgs args = {{"n", 0}, {"h", "x"}, {"pad", {1, 0}}, {"stride", {1, -1}}, {"ceil", 1},
                       {"eps", "small"}};
  ArgReader r("conv2d_nchwc.x86", args);
  EXPECT_THAT(r.Int("w").status().message(), HasSubstr("conv2d_nchwc.x86: missing argument 'w'"));
  EXPECT_THAT(r.Int("n").status().message(), HasSubstr("'n' must be at least 1, got 0"));
  EXPECT_THAT(r.Int("h").status().message(), HasSubstr("'h' must be an integer"));
  EXPECT_THAT(r.Ints("pad", 4, 0).status().message(), HasSubstr("'pad' must be a list of 4"));
  EXPECT_THAT(r.Ints("stride", 2).status().message(), HasSubstr("'stride' entries must be"));
  EXPECT_THAT(r.BoolOr("ceil", false).status().message(), HasSubstr("'ceil' must be true or"));
  EXPECT_THAT(r.Float("eps").status().message(), HasSubstr("'eps' must be a number"));
  EXPECT_THAT(r.String("n").status().message(), HasSubstr("'n' must be a string"));
  EXPECT_THAT(r.Error("ic must divide by groups").message(),
              HasSubstr("conv2d_nchwc.x86: ic must divide by groups"));
}

TEST(ArgReaderTest, ShapesAndExtentsAreNonEmptyAndFitInt32) {
  const OpArgs args = {{"shape", {1, 3, 224, 224}}, {"empty", OpArgs::array()},
                       {"huge", {1, int64_t{1} << 31}}, {"zero", {2, 0}}, {"ic", 64},
                       {"oc", int64_t{1} << 31}};
  ArgReader r("pad.x86", args);
  EXPECT_EQ(*r.Shape("shape"), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(*r.Extent("ic"), 64);
  EXPECT_THAT(r.Shape("empty").status().message(), HasSubstr("'empty' must not be empty"));
  EXPECT_THAT(r.Shape("huge").status().message(),
              HasSubstr("'huge' entries must be below 2^31, got 2147483648"));
  EXPECT_THAT(r.Shape("zero").status().message(), HasSubstr("'zero' entries must be at least 1"));
  EXPECT_THAT(r.Extent("oc").status().message(), HasSubstr("'oc' must be below 2^31"));
  EXPECT_EQ(r.ErrorIn("axes", absl::InvalidArgumentError("axis 4 repeated")).message(),
            "pad.x86: argument 'axes': axis 4 repeated");
}

TEST(ArgReaderTest, NonObjectArgumentsAreMissingKeys) {
  ArgReader r("relu.x86", OpArgs::array({1, 2}));
  EXPECT_THAT(r.Ints("shape", -1).status().message(), HasSubstr("missing argument 'shape'"));
}

}  // namespace
}  // namespace tessel::ops
