// conv2d_int8.x86 against libtorch's conv2d_int8, bit for bit: requantized (shifts from 0 to 31,
// with and without relu) and wrapped to the low 8 bits, 1x1 and 3x3 kernels, strides, padding on
// some sides only, batch 2, widths no vector divides, two ResNet-18 layers; random configs; a
// wrong shift caught; the cpu strategy's choice; argument errors naming the key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "baselines/torch/reference.h"
#include "compiler/ops/strategy.h"
#include "compiler/ops/testing/conv_args.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;
using testing::SquareConvArgs;

const Template& Int8Conv() { return testing::GetTemplate("conv2d_int8.x86"); }

// conv2d_int8's arguments: conv2d's without groups and dilation (the template reads them when
// given; OPERATORS.md lists them as conv2d's keys).
OpArgs Conv(int64_t ic, int64_t hw, int64_t oc, int64_t k, int64_t stride, int64_t pad) {
  OpArgs args = SquareConvArgs(ic, hw, oc, k, stride, pad);
  args.erase("groups");
  args.erase("dilation");
  return args;
}

OpArgs Requantized(OpArgs args, int64_t shift, bool relu = false) {
  args["shift"] = shift;
  if (relu) args["relu"] = true;
  return args;
}

void ExpectFallbackExact(const OpArgs& args) {
  absl::Status s = testing::CheckFallback(Int8Conv(), args);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dInt8Test, RequantizedFallback) {
  // 144 terms: sums of about +-2^16, so shifts 9-11 spread the outputs over the clip's range.
  ExpectFallbackExact(Requantized(Conv(16, 12, 24, 3, 1, 1), 10));
  ExpectFallbackExact(Requantized(Conv(16, 12, 24, 3, 1, 1), 10, /*relu=*/true));
  ExpectFallbackExact(Requantized(Conv(24, 13, 20, 3, 2, 1), 11));
  ExpectFallbackExact(Requantized(Conv(32, 9, 40, 1, 1, 0), 9));
  ExpectFallbackExact(Requantized(Conv(32, 15, 8, 1, 2, 0), 9, /*relu=*/true));
  // Shift 0: nearly every output clipped; shift 31: -1 for every negative sum (an arithmetic
  // shift; a logical one would give 1), 0 otherwise.
  ExpectFallbackExact(Requantized(Conv(8, 10, 16, 3, 1, 1), 0));
  ExpectFallbackExact(Requantized(Conv(8, 10, 16, 3, 1, 1), 31));
  ExpectFallbackExact(Requantized(Conv(8, 10, 16, 3, 1, 1), 31, /*relu=*/true));
}

TEST(Conv2dInt8Test, WrappedFallback) {
  ExpectFallbackExact(Conv(16, 12, 24, 3, 1, 1));
  ExpectFallbackExact(Conv(24, 13, 20, 3, 2, 1));
  ExpectFallbackExact(Conv(32, 9, 40, 1, 1, 0));
  ExpectFallbackExact(Conv(3, 17, 5, 3, 1, 0));
}

TEST(Conv2dInt8Test, AwkwardShapesFallback) {
  // Batch 2, a rectangular kernel and input, different strides, padding on some sides only.
  OpArgs rect = Conv(6, 11, 10, 3, 1, 1);
  rect["n"] = 2;
  rect["w"] = 13;
  rect["kw"] = 1;
  rect["stride"] = {1, 2};
  rect["pad"] = {1, 0, 2, 1};
  ExpectFallbackExact(rect);
  ExpectFallbackExact(Requantized(rect, 8));
  // Prime widths and channel counts (no vector divides the output columns), a 5x5 kernel.
  OpArgs prime = Conv(7, 19, 11, 5, 1, 2);
  prime["h"] = 9;
  ExpectFallbackExact(Requantized(prime, 10, /*relu=*/true));
  OpArgs batch = Conv(5, 7, 3, 3, 2, 1);
  batch["n"] = 2;
  ExpectFallbackExact(Requantized(batch, 7));
  ExpectFallbackExact(Conv(1, 1, 1, 1, 1, 0));
}

TEST(Conv2dInt8Test, NetworkLayersFallback) {
  // ResNet-18's C2 (64 -> 64, 56x56) and C12 (512 -> 512, 7x7), requantized as a quantized
  // network runs them; C7 (the 1x1 stride-2 shortcut) wrapped.
  ExpectFallbackExact(Requantized(Conv(64, 56, 64, 3, 1, 1), 12, /*relu=*/true));
  ExpectFallbackExact(Requantized(Conv(512, 7, 512, 3, 1, 1), 13));
  ExpectFallbackExact(Conv(64, 56, 128, 1, 2, 0));
}

TEST(Conv2dInt8Test, RandomConfigs) {
  OpArgs args = Conv(12, 10, 24, 3, 1, 1);
  args["w"] = 14;
  absl::Status s = testing::CheckRandomConfigs(Int8Conv(), Requantized(args, 10), 20);
  EXPECT_TRUE(s.ok()) << s;
  s = testing::CheckRandomConfigs(Int8Conv(), Conv(16, 9, 20, 3, 2, 1), 12);
  EXPECT_TRUE(s.ok()) << s;
}

// The comparison can fail: the program's outputs equal the reference's for its own shift and
// differ from those for the next shift, and from the wrapped sums.
TEST(Conv2dInt8Test, AnotherShiftDiffers) {
  const OpArgs args = Requantized(Conv(16, 12, 24, 3, 1, 1), 10);
  absl::StatusOr<std::optional<testing::ConfigRun>> run =
      testing::RunFallback(Int8Conv(), args, {.seed = 3});
  ASSERT_TRUE(run.ok()) << run.status();
  if (!run->has_value()) return;  // compiled for a CPU this one is not
  const testing::ConfigRun& r = **run;
  EXPECT_TRUE(testing::MatchesReference("conv2d_int8", args, r).ok());
  EXPECT_FALSE(testing::MatchesReference("conv2d_int8", Requantized(args, 11), r).ok());
  OpArgs wrapped = args;
  wrapped.erase("shift");
  EXPECT_FALSE(testing::MatchesReference("conv2d_int8", wrapped, r, 2).ok());
}

TEST(Conv2dInt8Test, TheCpuStrategyChoosesIt) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(target::Target::Llvm());
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<const Template*> t =
      SelectTemplate("conv2d_int8", Requantized(Conv(64, 56, 64, 3, 1, 1), 8), *facts);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)->name, "conv2d_int8.x86");
}

TEST(Conv2dInt8Test, ArgumentErrorsNameTheKey) {
  target::TargetFacts facts;
  auto error = [&](const OpArgs& args) {
    absl::StatusOr<search::ConfigSpace> s = Int8Conv().space(args, facts);
    EXPECT_FALSE(s.ok()) << args.dump();
    EXPECT_TRUE(absl::IsInvalidArgument(s.status())) << s.status();
    return std::string(s.status().message());
  };
  const OpArgs conv = Conv(8, 8, 8, 3, 1, 1);
  EXPECT_THAT(error(Requantized(conv, 40)),
              HasSubstr("conv2d_int8.x86: argument 'shift' must be at most 31"));
  EXPECT_THAT(error(Requantized(conv, -1)), HasSubstr("'shift'"));
  OpArgs relu_alone = conv;
  relu_alone["relu"] = true;
  EXPECT_THAT(error(relu_alone), HasSubstr("conv2d_int8.x86: argument 'relu' goes with 'shift'"));
  OpArgs groups = conv;
  groups["groups"] = 2;
  EXPECT_THAT(error(groups), HasSubstr("conv2d_int8.x86: argument 'groups' must be 1"));
  OpArgs dilated = conv;
  dilated["dilation"] = {2, 2};
  EXPECT_THAT(error(dilated), HasSubstr("conv2d_int8.x86: argument 'dilation' must be [1, 1]"));
  OpArgs no_oc = conv;
  no_oc.erase("oc");
  EXPECT_THAT(error(no_oc), HasSubstr("'oc'"));
  EXPECT_THAT(error(Conv(8, 2, 8, 5, 1, 0)), HasSubstr("kernel"));
}

}  // namespace
}  // namespace tessel::ops
