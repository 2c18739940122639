// bitserial_conv2d_nhwc.x86 against libtorch (float64 on exact integers): unipolar and bipolar,
// several bit widths, padding and strides, awkward shapes (channels not a multiple of 32, prime
// sizes, rectangular kernels, batch 2), random configs, argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

const Template& BitserialConv() {
  absl::StatusOr<const Template*> t = FindTemplate("bitserial_conv2d_nhwc.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Conv(int64_t ic, int64_t hw, int64_t oc, int64_t k, int64_t s, int64_t p, int64_t abits = 2,
            int64_t wbits = 1, bool unipolar = true) {
  return {{"n", 1},
          {"ic", ic},
          {"h", hw},
          {"w", hw},
          {"oc", oc},
          {"kh", k},
          {"kw", k},
          {"stride", {s, s}},
          {"pad", {p, p, p, p}},
          {"activation_bits", abits},
          {"weight_bits", wbits},
          {"unipolar", unipolar}};
}

TEST(BitserialConv2dTest, NetworkLayersFallback) {
  // ResNet-18 layers at low precision, unipolar (2-bit activations, 1-bit weights) and bipolar.
  for (const OpArgs& args : {Conv(64, 14, 64, 3, 1, 1), Conv(128, 14, 128, 3, 2, 1),
                             Conv(64, 14, 128, 1, 2, 0), Conv(64, 14, 64, 3, 1, 1, 2, 1, false)}) {
    absl::Status s = testing::CheckFallback(BitserialConv(), args);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(BitserialConv2dTest, AwkwardShapesFallback) {
  OpArgs asym = Conv(3, 7, 5, 3, 2, 1);
  asym["pad"] = {1, 0, 2, 1};
  OpArgs rect = Conv(33, 8, 16, 3, 1, 0, 1, 2);
  rect["kw"] = 1;
  rect["stride"] = {1, 2};
  rect["n"] = 2;
  OpArgs wide = Conv(40, 9, 17, 1, 1, 0, 3, 3);
  wide["w"] = 11;
  OpArgs bipolar = Conv(35, 13, 19, 3, 1, 1, 4, 1, false);
  bipolar["pad"] = {0, 2, 1, 0};
  for (const OpArgs& args :
       {asym, rect, wide, bipolar, Conv(1, 1, 1, 1, 1, 0), Conv(96, 5, 7, 5, 1, 2, 8, 8)}) {
    absl::Status s = testing::CheckFallback(BitserialConv(), args);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(BitserialConv2dTest, RandomConfigs) {
  OpArgs args = Conv(35, 6, 20, 3, 1, 1, 2, 2);
  args["w"] = 10;
  absl::Status s = testing::CheckRandomConfigs(BitserialConv(), args, 20);
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckRandomConfigs(BitserialConv(), Conv(64, 7, 24, 3, 2, 1, 2, 1, false), 20);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(BitserialConv2dTest, ArgumentErrorsNameTheKey) {
  target::TargetFacts facts;
  auto message = [&](const OpArgs& args) {
    absl::StatusOr<search::ConfigSpace> s = BitserialConv().space(args, facts);
    return s.ok() ? std::string("ok") : std::string(s.status().message());
  };
  OpArgs groups = Conv(8, 8, 8, 3, 1, 1);
  groups["groups"] = 2;
  EXPECT_THAT(message(groups), HasSubstr("'groups'"));
  OpArgs dilated = Conv(8, 8, 8, 3, 1, 1);
  dilated["dilation"] = {2, 2};
  EXPECT_THAT(message(dilated), HasSubstr("'dilation'"));
  EXPECT_THAT(message(Conv(8, 8, 8, 3, 1, 1, 2, 2, false)), HasSubstr("'weight_bits'"));
  EXPECT_THAT(message(Conv(8, 8, 8, 3, 1, 1, 9)), HasSubstr("'activation_bits'"));
  OpArgs no_oc = Conv(8, 8, 8, 3, 1, 1);
  no_oc.erase("oc");
  EXPECT_THAT(message(no_oc), HasSubstr("'oc'"));
  EXPECT_THAT(message(Conv(8, 2, 8, 5, 1, 0)), HasSubstr("kernel"));
}

}  // namespace
}  // namespace tessel::ops
