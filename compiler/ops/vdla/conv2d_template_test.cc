#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/target/target_facts.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::vdla {
namespace {

using runtime::NDArray;
using ::testing::HasSubstr;

target::TargetFacts Facts(const std::string& target) {
  return *target::DescribeTarget(*target::Target::Parse(target));
}

// 32 -> 32 channels, 8x8, 3x3 pad 1.
OpArgs SmallArgs() {
  return {{"n", 1},  {"ic", 32},         {"h", 8},
          {"w", 8},  {"oc", 32},         {"kh", 3},
          {"kw", 3}, {"stride", {1, 1}}, {"pad", {1, 1, 1, 1}}};
}

const Template& Conv() { return **FindTemplate("conv2d_int8.vdla"); }

TEST(VdlaConv2dTemplateTest, KnobsFilterAndFallback) {
  const target::TargetFacts vdla = Facts("vdla");
  absl::StatusOr<search::ConfigSpace> space = Conv().space(SmallArgs(), vdla);
  ASSERT_TRUE(space.ok()) << space.status();
  // tile_h: divisors of 8 (4), tile_o: of 2 blocks (2), vthreads 3, axis 2, double buffer 2.
  EXPECT_EQ(space->size(), 4 * 2 * 3 * 2 * 2);
  absl::StatusOr<search::Config> one_thread_over_channels =
      space->FromJson({{"knobs",
                        {{"tile_h", 8},
                         {"tile_o", 1},
                         {"vthreads", 1},
                         {"vthread_axis", 1},
                         {"double_buffer", 0}}}});
  ASSERT_TRUE(one_thread_over_channels.ok()) << one_thread_over_channels.status();
  EXPECT_FALSE(space->Validate(*one_thread_over_channels).ok());
  // Four threads over the 2 row tiles of 4 rows do not divide them.
  absl::StatusOr<search::Config> four = space->FromJson({{"knobs",
                                                          {{"tile_h", 4},
                                                           {"tile_o", 1},
                                                           {"vthreads", 4},
                                                           {"vthread_axis", 0},
                                                           {"double_buffer", 0}}}});
  ASSERT_TRUE(four.ok()) << four.status();
  EXPECT_FALSE(space->Validate(*four).ok());

  const search::Config fallback = Conv().fallback(*space, SmallArgs(), vdla);
  EXPECT_TRUE(space->Validate(fallback).ok());
  EXPECT_EQ(fallback.knob("vthreads"), 2);
  EXPECT_EQ(fallback.knob("double_buffer"), 1);
  // The fallback compiles: its buffers fit.
  absl::StatusOr<OpProgram> p = Conv().instantiate(fallback, SmallArgs(), vdla);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(p->schedule, p->args, "conv");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(codegen::vdla::EmitProgram(*f, *vdla.vdla).ok());
}

TEST(VdlaConv2dTemplateTest, PrepareAndFinishMoveEveryElementToItsBlock) {
  const target::TargetFacts vdla = Facts("vdla");
  absl::StatusOr<Instantiated> in = InstantiateFallback(Conv(), SmallArgs(), vdla);
  ASSERT_TRUE(in.ok()) << in.status();
  const std::vector<NDArray> logical = RandomInputs(in->program.logical_inputs, 7);
  absl::StatusOr<std::vector<NDArray>> packed = PrepareInputs(in->program, logical);
  ASSERT_TRUE(packed.ok()) << packed.status();
  // data [1, 32, 8, 8] -> [1, 2, 8, 8, 1, 16]: channel 17, row 3, column 5.
  EXPECT_EQ((*packed)[0].shape(), (std::vector<int64_t>{1, 2, 8, 8, 1, 16}));
  EXPECT_EQ((*packed)[0].data<int8_t>()[((1 * 8 + 3) * 8 + 5) * 16 + 1],
            logical[0].data<int8_t>()[(17 * 8 + 3) * 8 + 5]);
  // weight [32, 32, 3, 3] -> [2, 2, 3, 3, 16, 16]: output 20, input 9, tap (2, 1).
  EXPECT_EQ((*packed)[1].shape(), (std::vector<int64_t>{2, 2, 3, 3, 16, 16}));
  EXPECT_EQ((*packed)[1].data<int8_t>()[((((1 * 2 + 0) * 3 + 2) * 3 + 1) * 16 + 4) * 16 + 9],
            logical[1].data<int8_t>()[((20 * 32 + 9) * 3 + 2) * 3 + 1]);
  // The output's finish is the inverse of packing it.
  std::vector<NDArray> out = AllocateOutputs(in->program);
  for (int64_t i = 0; i < out[0].NumElements(); ++i) {
    out[0].data<int8_t>()[i] = static_cast<int8_t>(i * 7);
  }
  absl::StatusOr<std::vector<NDArray>> logical_out = in->program.finish(out);
  ASSERT_TRUE(logical_out.ok()) << logical_out.status();
  EXPECT_EQ((*logical_out)[0].shape(), (std::vector<int64_t>{1, 32, 8, 8}));
  EXPECT_EQ((*logical_out)[0].data<int8_t>()[(20 * 8 + 6) * 8 + 2],
            out[0].data<int8_t>()[((1 * 8 + 6) * 8 + 2) * 16 + 4]);
}

TEST(VdlaConv2dTemplateTest, ArgumentsItCannotComputeAreNamed) {
  const target::TargetFacts vdla = Facts("vdla");
  OpArgs odd = SmallArgs();
  odd["ic"] = 24;
  EXPECT_THAT(
      Conv().space(odd, vdla).status().message(),
      HasSubstr("channels 24 -> 32 are not multiples of the accelerator's blocks 16 -> 16"));
  OpArgs grouped = SmallArgs();
  grouped["groups"] = 2;
  EXPECT_THAT(Conv().space(grouped, vdla).status().message(), HasSubstr("'groups' must be 1"));
  OpArgs lopsided = SmallArgs();
  lopsided["pad"] = {1, 1, 0, 0};
  EXPECT_THAT(Conv().space(lopsided, vdla).status().message(),
              HasSubstr("'pad' must be the same on all four sides"));
  OpArgs relu_alone = SmallArgs();
  relu_alone["relu"] = true;
  EXPECT_THAT(Conv().space(relu_alone, vdla).status().message(),
              HasSubstr("argument 'relu' goes with 'shift'"));
  OpArgs far = SmallArgs();
  far["shift"] = 40;
  EXPECT_THAT(Conv().space(far, vdla).status().message(),
              HasSubstr("argument 'shift' must be at most 31"));
  EXPECT_THAT(Conv().space(SmallArgs(), Facts("llvm")).status().message(),
              HasSubstr("conv2d_int8.vdla: needs a vdla target; target 'llvm"));
}

}  // namespace
}  // namespace tessel::ops::vdla
