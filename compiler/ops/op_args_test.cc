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

TEST(ArgReaderTest, NonObjectArgumentsAreMissingKeys) {
  ArgReader r("relu.x86", OpArgs::array({1, 2}));
  EXPECT_THAT(r.Ints("shape", -1).status().message(), HasSubstr("missing argument 'shape'"));
}

}  // namespace
}  // namespace tessel::ops
