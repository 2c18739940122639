// The conv2d family's x86 templates against libtorch: Table 2 layers, awkward shapes, random
// configs, and argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/conv_args.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ops::testing::SquareConvArgs;

using ::testing::HasSubstr;

// Sums of ic * k * k products of values in [-1, 1): rounding grows with the reduction length.
TEST(Conv2dNchwcTest, Table2LayersFallback) {
  const Template& t = testing::GetTemplate("conv2d_nchwc.x86");
  for (const OpArgs& args :
       {SquareConvArgs(3, 224, 64, 7, 2, 3), SquareConvArgs(64, 56, 64, 3, 1, 1),
        SquareConvArgs(64, 56, 64, 1, 1, 0), SquareConvArgs(64, 56, 128, 3, 2, 1),
        SquareConvArgs(128, 28, 256, 1, 2, 0), SquareConvArgs(256, 14, 256, 3, 1, 1),
        SquareConvArgs(512, 7, 512, 3, 1, 1)}) {
    EXPECT_TRUE(testing::CheckFallback(t, args, testing::WithTolerance(2e-3)).ok())
        << testing::CheckFallback(t, args, testing::WithTolerance(2e-3));
  }
}

TEST(Conv2dNchwcTest, AwkwardShapes) {
  const Template& t = testing::GetTemplate("conv2d_nchwc.x86");
  OpArgs asym = SquareConvArgs(5, 13, 7, 3, 1, 0);
  asym["w"] = 17;
  asym["pad"] = {1, 0, 2, 1};
  OpArgs dilated = SquareConvArgs(6, 11, 10, 3, 1, 2);
  dilated["dilation"] = {2, 2};
  OpArgs rect = SquareConvArgs(4, 9, 6, 3, 2, 1);
  rect["kw"] = 5;
  rect["stride"] = {1, 2};
  rect["n"] = 2;
  for (const OpArgs& args : {asym, dilated, rect, SquareConvArgs(13, 7, 11, 1, 1, 0),
                             SquareConvArgs(3, 1, 5, 1, 1, 0)}) {
    absl::Status s = testing::CheckFallback(t, args, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(Conv2dNchwcTest, RandomConfigs) {
  const Template& t = testing::GetTemplate("conv2d_nchwc.x86");
  OpArgs args = SquareConvArgs(24, 10, 48, 3, 1, 1);
  args["pad"] = {1, 0, 1, 2};
  absl::Status s = testing::CheckRandomConfigs(t, args, 20, testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dNchwTest, GroupsStridesAndRandomConfigs) {
  const Template& t = testing::GetTemplate("conv2d_nchw.x86");
  OpArgs grouped = SquareConvArgs(12, 9, 8, 3, 2, 1, 4);
  grouped["pad"] = {0, 1, 2, 1};
  for (const OpArgs& args :
       {SquareConvArgs(64, 28, 64, 3, 1, 1), grouped, SquareConvArgs(8, 8, 8, 3, 1, 1, 8),
        SquareConvArgs(3, 17, 5, 5, 3, 2)}) {
    absl::Status s = testing::CheckFallback(t, args, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
  absl::Status s = testing::CheckRandomConfigs(t, grouped, 20, testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DepthwiseConv2dNchwcTest, Table2LayersAwkwardAndRandom) {
  const Template& t = testing::GetTemplate("depthwise_conv2d_nchwc.x86");
  OpArgs asym = SquareConvArgs(24, 15, 24, 3, 2, 1, 24);
  asym["pad"] = {0, 1, 1, 0};
  for (const OpArgs& args :
       {SquareConvArgs(32, 112, 32, 3, 1, 1, 32), SquareConvArgs(64, 112, 64, 3, 2, 1, 64),
        SquareConvArgs(512, 14, 512, 3, 1, 1, 512), SquareConvArgs(1024, 7, 1024, 3, 1, 1, 1024),
        asym, SquareConvArgs(7, 5, 7, 5, 1, 2, 7)}) {
    absl::Status s = testing::CheckFallback(t, args, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
  absl::Status s = testing::CheckRandomConfigs(t, SquareConvArgs(48, 12, 48, 3, 2, 1, 48), 20,
                                               testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

// The configs a graph takes for data already held in a block (Template::fallback_for_block):
// they read that block and compute what libtorch does; a block not dividing the channels has
// none.
TEST(Conv2dTemplatesTest, FallbackForBlockReadsThatBlock) {
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(testing::CheckOptions().target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  const OpArgs depthwise = SquareConvArgs(64, 14, 64, 3, 2, 1, 64);
  const OpArgs pointwise = SquareConvArgs(64, 14, 48, 1, 1, 0, 1);
  for (const auto& [name, args] : {std::pair{"depthwise_conv2d_nchwc.x86", depthwise},
                                   std::pair{"conv2d_nchwc.x86", pointwise}}) {
    const Template& t = testing::GetTemplate(name);
    ASSERT_TRUE(t.fallback_for_block) << name;
    absl::StatusOr<search::ConfigSpace> space = t.space(args, *facts);
    ASSERT_TRUE(space.ok()) << space.status();
    for (int64_t block : {2, 4, 8, 16, 32}) {
      std::optional<search::Config> config = t.fallback_for_block(*space, args, *facts, block);
      ASSERT_TRUE(config.has_value()) << name << " block " << block;
      EXPECT_EQ(t.channel_blocks(*config, args, *facts).in, block) << name;
      absl::Status s = testing::CheckConfig(t, args, *config, testing::WithTolerance(2e-3));
      EXPECT_TRUE(s.ok()) << name << " block " << block << ": " << s;
    }
    EXPECT_FALSE(t.fallback_for_block(*space, args, *facts, 5).has_value()) << name;
  }
}

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

TEST(Conv2dTransposeTest, DcganLayersAwkwardAndRandom) {
  const Template& t = testing::GetTemplate("conv2d_transpose_nchwc.x86");
  OpArgs odd = Transpose(6, 5, 10, 3, 2, 1);
  odd["pad"] = {0, 1, 2, 0};
  odd["output_padding"] = {1, 0};
  for (const OpArgs& args : {Transpose(512, 4, 256, 4, 2, 1), Transpose(128, 16, 64, 4, 2, 1),
                             Transpose(64, 32, 3, 4, 2, 1), odd, Transpose(5, 3, 7, 3, 1, 0)}) {
    absl::Status s = testing::CheckFallback(t, args, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
  absl::Status s = testing::CheckRandomConfigs(t, Transpose(8, 6, 16, 4, 2, 1), 20,
                                               testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dTemplatesTest, BadArgumentsNameTheKey) {
  const target::TargetFacts facts;
  auto error = [&](const std::string& name, const OpArgs& args) {
    absl::StatusOr<search::ConfigSpace> space = testing::GetTemplate(name).space(args, facts);
    EXPECT_FALSE(space.ok());
    return std::string(space.status().message());
  };
  OpArgs no_h = SquareConvArgs(8, 8, 8, 3, 1, 1);
  no_h.erase("h");
  EXPECT_THAT(error("conv2d_nchwc.x86", no_h), HasSubstr("missing argument 'h'"));
  EXPECT_THAT(error("conv2d_nchwc.x86", SquareConvArgs(8, 8, 8, 3, 1, 1, 2)),
              HasSubstr("'groups' must be 1"));
  EXPECT_THAT(error("conv2d_nchw.x86", SquareConvArgs(6, 8, 8, 3, 1, 1, 4)),
              HasSubstr("'groups' (4) must divide"));
  EXPECT_THAT(error("conv2d_nchw.x86", SquareConvArgs(6, 2, 8, 5, 1, 0)),
              HasSubstr("kernel 'kh' x 'kw' (5x5"));
  OpArgs bad_pad = SquareConvArgs(8, 8, 8, 3, 1, 1);
  bad_pad["pad"] = {1, 1};
  EXPECT_THAT(error("conv2d_nchw.x86", bad_pad), HasSubstr("'pad' must be a list of 4"));
  EXPECT_THAT(error("depthwise_conv2d_nchwc.x86", SquareConvArgs(8, 8, 16, 3, 1, 1, 8)),
              HasSubstr("'groups' == 'ic' == 'oc'"));
  OpArgs big_pad = Transpose(8, 4, 8, 3, 2, 3);
  EXPECT_THAT(error("conv2d_transpose_nchwc.x86", big_pad), HasSubstr("'pad' entries"));
  OpArgs out_pad = Transpose(8, 4, 8, 3, 2, 1);
  out_pad["output_padding"] = {2, 0};
  EXPECT_THAT(error("conv2d_transpose_nchwc.x86", out_pad), HasSubstr("'output_padding'"));
}

TEST(Conv2dTemplatesTest, ConfigOutsideTheSpaceIsAClearError) {
  const target::TargetFacts facts;
  const OpArgs args = SquareConvArgs(64, 56, 64, 3, 1, 1);
  absl::StatusOr<search::ConfigSpace> space =
      testing::GetTemplate("conv2d_nchwc.x86").space(args, facts);
  ASSERT_TRUE(space.ok()) << space.status();
  nlohmann::json json =
      testing::GetTemplate("conv2d_nchwc.x86").fallback(*space, args, facts).ToJson();
  ASSERT_TRUE(space->FromJson(json).ok());
  json["knobs"]["tile_oc"] = {3, 21};  // 21 does not divide 64
  absl::StatusOr<search::Config> bad = space->FromJson(json);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("tile_oc"));
  json["knobs"].erase("tile_oc");
  EXPECT_THAT(space->FromJson(json).status().message(), HasSubstr("tile_oc"));
}

}  // namespace
}  // namespace tessel::ops
