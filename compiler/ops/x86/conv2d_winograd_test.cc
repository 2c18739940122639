// conv2d_winograd.x86 against libtorch's conv2d: the fallback on ResNet-18's 3x3 stride-1 layers,
// both tile sizes on awkward shapes (odd sizes, no padding, asymmetric padding, few channels,
// batch 2), random configs, and the arguments Winograd refuses.
//
// Tolerances: Winograd rounds differently from a direct sum. Inputs are uniform in [-1, 1), so
// outputs of ic * 9 products reach ~33 (ic = 64) to ~90 (ic = 512). Measured
// (MeasuredErrorIsSmall prints it), the largest error is 1.3e-5 (F(2x2)) and 7.8e-5 (F(4x4)) at
// ic = 64, 7.6e-5 and 3.6e-4 at ic = 512: about 1e-6 and 4e-6 of the largest output, with
// points 0, +-1, 1/2, -2 for F(4x4) (Lavin's 0, +-1, +-2: ~3x worse in a float32 simulation).
// The checks allow |diff| <= atol + 1e-3 |ref| with atol = 1e-3 (the default) up to 128 channels
// and 2e-3 on the 256- and 512-channel layers, and MeasuredErrorIsSmall holds the error to 2e-5
// of the largest output, five times the measured.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "baselines/torch/reference.h"
#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops::x86 {
namespace {

using testing::CheckConfig;
using testing::CheckFallback;
using testing::CheckOptions;
using testing::CheckRandomConfigs;

const Template& Winograd() {
  absl::StatusOr<const Template*> t = FindTemplate("conv2d_winograd.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Conv(int64_t n, int64_t ic, int64_t h, int64_t w, int64_t oc,
            std::vector<int64_t> pad = {1, 1, 1, 1}) {
  return OpArgs{{"n", n},     {"ic", ic}, {"h", h},     {"w", w},           {"oc", oc},
                {"kh", 3},    {"kw", 3},  {"pad", pad}, {"stride", {1, 1}}, {"dilation", {1, 1}},
                {"groups", 1}};
}

// The fallback config with some knobs set (values as Config::ToJson writes them).
search::Config FallbackWith(const OpArgs& args, const nlohmann::json& knobs) {
  const CheckOptions options;
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(options.target);
  EXPECT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<search::ConfigSpace> space = Winograd().space(args, *facts);
  EXPECT_TRUE(space.ok()) << space.status();
  nlohmann::json j = Winograd().fallback(*space, args, *facts).ToJson();
  j.erase("index");
  for (const auto& [k, v] : knobs.items()) j["knobs"][k] = v;
  absl::StatusOr<search::Config> c = space->FromJson(j);
  EXPECT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(space->Validate(*c).ok()) << c->ToString();
  return *c;
}

TEST(Conv2dWinogradTest, FallbackOnResNet18Layers) {
  for (const auto& [size, channels] :
       std::vector<std::pair<int64_t, int64_t>>{{56, 64}, {28, 128}, {14, 256}, {7, 512}}) {
    CheckOptions options;
    if (channels >= 256) options.atol = 2e-3;
    const absl::Status s =
        CheckFallback(Winograd(), Conv(1, channels, size, size, channels), options);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(Conv2dWinogradTest, AwkwardShapesWithBothTileSizes) {
  const std::vector<OpArgs> cases = {
      Conv(1, 16, 13, 17, 16),                // odd sizes: tiles overhang both ways
      Conv(1, 16, 12, 12, 32, {0, 0, 0, 0}),  // no padding
      Conv(1, 16, 11, 9, 16, {1, 0, 2, 1}),   // asymmetric padding
      Conv(1, 3, 10, 10, 16),                 // ic = 3: padded channels
      Conv(1, 16, 10, 10, 5),                 // oc = 5: padded output channels
      Conv(2, 8, 9, 7, 24, {2, 1, 0, 1}),     // batch 2, everything odd
      Conv(1, 4, 3, 3, 4, {0, 0, 0, 0}),      // a single output pixel
  };
  for (const OpArgs& args : cases) {
    for (int m : {2, 4}) {
      const absl::Status s = CheckConfig(Winograd(), args, FallbackWith(args, {{"tile_size", m}}));
      EXPECT_TRUE(s.ok()) << s;
    }
    const absl::Status s = CheckFallback(Winograd(), args);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(Conv2dWinogradTest, OtherScheduleChoices) {
  // The choices the fallback does not make, each on its own, on a shape with padding. The
  // widest panel is three vectors of the target's lanes (48 channels: 16 lanes with AVX-512, 8
  // with AVX2), with three tile rows, which fit 16 vector registers as well as 32.
  const OpArgs args = Conv(1, 32, 15, 13, 48, {1, 2, 1, 0});
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(CheckOptions().target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  const int64_t panel = 3 * std::max(facts->lanes(), 4);
  for (const nlohmann::json& knobs :
       {nlohmann::json{{"pad_inline", 0}}, nlohmann::json{{"gemm_order", 1}},
        nlohmann::json{{"transform_order", 1}}, nlohmann::json{{"transform_unroll", 0}},
        nlohmann::json{{"tile_k", {8, 4}}, {"tile_p", 3}},
        nlohmann::json{{"tile_oc", {48 / panel, panel}}, {"tile_p", 3}, {"tile_size", 2}}}) {
    const absl::Status s = CheckConfig(Winograd(), args, FallbackWith(args, knobs));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(Conv2dWinogradTest, RandomConfigs) {
  CheckOptions options;
  options.seed = 7;
  absl::Status s = CheckRandomConfigs(Winograd(), Conv(1, 32, 14, 11, 32), 12, options);
  EXPECT_TRUE(s.ok()) << s;
  options.seed = 8;
  s = CheckRandomConfigs(Winograd(), Conv(2, 3, 9, 12, 20, {1, 0, 2, 1}), 12, options);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dWinogradTest, MeasuredErrorIsSmall) {
  const CheckOptions options;
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(options.target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  for (const OpArgs& args : {Conv(1, 64, 20, 20, 64), Conv(1, 512, 7, 7, 64)}) {
    for (int m : {2, 4}) {
      absl::StatusOr<OpProgram> p =
          Winograd().instantiate(FallbackWith(args, {{"tile_size", m}}), args, *facts);
      ASSERT_TRUE(p.ok()) << p.status();
      absl::StatusOr<std::optional<runtime::Function>> f =
          testing::CompileToCheck(*p, options.target);
      ASSERT_TRUE(f.ok()) << f.status();
      if (!f->has_value()) continue;
      const std::vector<runtime::NDArray> in = testing::RandomInputs(p->logical_inputs, 3);
      absl::StatusOr<std::vector<runtime::NDArray>> got = testing::RunLogical(*p, **f, in);
      ASSERT_TRUE(got.ok()) << got.status();
      absl::StatusOr<std::vector<runtime::NDArray>> want =
          baselines::TorchReference("conv2d", args, in);
      ASSERT_TRUE(want.ok()) << want.status();
      double max_diff = 0, max_ref = 0;
      for (int64_t i = 0; i < (*want)[0].NumElements(); ++i) {
        const double g = (*got)[0].data<float>()[i], w = (*want)[0].data<float>()[i];
        max_diff = std::max(max_diff, std::fabs(g - w));
        max_ref = std::max(max_ref, std::fabs(w));
      }
      std::cout << "F(" << m << "x" << m << ") ic=" << args["ic"] << ": max |diff| " << max_diff
                << ", max |ref| " << max_ref << ", relative " << max_diff / max_ref << "\n";
      EXPECT_LE(max_diff, 2e-5 * max_ref) << "F(" << m << ") " << args.dump();
    }
  }
}

// Expects the template to refuse args with a message naming key.
void ExpectRefused(const OpArgs& args, const std::string& key) {
  const CheckOptions options;
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(options.target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<search::ConfigSpace> space = Winograd().space(args, *facts);
  ASSERT_FALSE(space.ok()) << args.dump();
  EXPECT_EQ(space.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos) << space.status();
  EXPECT_NE(space.status().message().find("conv2d_winograd.x86"), std::string::npos)
      << space.status();
}

// The output is NCHW{block}c, what a graph may keep blocked, exactly when the whole tiles cover
// it (14 = 7 tiles of 2, not 4 of 4); the compiled graphs check the claim against the program's
// finish (driver/kernel_connection.h), and the test graphs' Winograd kernels with a blocked
// residual tail against libtorch (driver/compile_layout_test.cc).
TEST(Conv2dWinogradTest, BlockedOutputOnlyWithWholeTiles) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(CheckOptions().target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  const OpArgs args = Conv(1, 64, 14, 14, 64);
  const ChannelBlocks two =
      Winograd().channel_blocks(FallbackWith(args, {{"tile_size", 2}}), args, *facts);
  const ChannelBlocks four =
      Winograd().channel_blocks(FallbackWith(args, {{"tile_size", 4}}), args, *facts);
  EXPECT_GT(two.in, 0);
  EXPECT_EQ(two.out, two.in);
  EXPECT_EQ(four.in, two.in);
  EXPECT_EQ(four.out, 0);
}

TEST(Conv2dWinogradTest, RefusesWhatWinogradDoesNotCompute) {
  OpArgs a = Conv(1, 16, 16, 16, 16);
  a["stride"] = {2, 2};
  ExpectRefused(a, "stride");
  a = Conv(1, 16, 16, 16, 16);
  a["stride"] = {1, 2};
  ExpectRefused(a, "stride");
  a = Conv(1, 16, 16, 16, 16);
  a["kh"] = 5;
  ExpectRefused(a, "kh");
  a = Conv(1, 16, 16, 16, 16);
  a["kw"] = 1;
  ExpectRefused(a, "kw");
  a = Conv(1, 16, 16, 16, 16);
  a["groups"] = 2;
  ExpectRefused(a, "groups");
  a = Conv(1, 16, 16, 16, 16);
  a["dilation"] = {2, 2};
  ExpectRefused(a, "dilation");
  a = Conv(1, 16, 16, 16, 16);
  a.erase("oc");
  ExpectRefused(a, "oc");
}

}  // namespace
}  // namespace tessel::ops::x86
