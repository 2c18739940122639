// dense_int8.vdla's space, fallback, packing and refusals; its outputs against libtorch's are
// search/measure/vdla_measure_test's.
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

// 3 rows, 40 -> 100: no extent a multiple of the 16 x 16 blocks.
OpArgs OddArgs() { return {{"m", 3}, {"n", 100}, {"k", 40}, {"shift", 7}, {"relu", true}}; }

const Template& Dense() { return **FindTemplate("dense_int8.vdla"); }

// The fallback compiles: its buffers fit.
void ExpectFallbackCompiles(const OpArgs& args) {
  const target::TargetFacts vdla = Facts("vdla");
  absl::StatusOr<Instantiated> in = InstantiateFallback(Dense(), args, vdla);
  ASSERT_TRUE(in.ok()) << in.status();
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(in->program.schedule, in->program.args, "d");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<hardware::vdla::Program> p = codegen::vdla::EmitProgram(*f, *vdla.vdla);
  EXPECT_TRUE(p.ok()) << p.status();
}

TEST(VdlaDenseTemplateTest, KnobsFilterAndFallback) {
  const target::TargetFacts vdla = Facts("vdla");
  absl::StatusOr<search::ConfigSpace> space = Dense().space(OddArgs(), vdla);
  ASSERT_TRUE(space.ok()) << space.status();
  // tile_m: divisors of 3 rows (2), tile_n: of 7 column blocks (2), vthreads 3, axis 2, double
  // buffer 2.
  EXPECT_EQ(space->size(), 2 * 2 * 3 * 2 * 2);
  // Two threads over the 7 column tiles of one block do not divide them.
  absl::StatusOr<search::Config> two = space->FromJson({{"knobs",
                                                         {{"tile_m", 3},
                                                          {"tile_n", 1},
                                                          {"vthreads", 2},
                                                          {"vthread_axis", 1},
                                                          {"double_buffer", 0}}}});
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_FALSE(space->Validate(*two).ok());

  // A batch of one: two threads over the column tiles, the weights double-buffered.
  const OpArgs fc = {{"m", 1}, {"n", 512}, {"k", 3136}, {"shift", 9}};
  absl::StatusOr<search::ConfigSpace> fc_space = Dense().space(fc, vdla);
  ASSERT_TRUE(fc_space.ok()) << fc_space.status();
  const search::Config fallback = Dense().fallback(*fc_space, fc, vdla);
  EXPECT_TRUE(fc_space->Validate(fallback).ok());
  EXPECT_EQ(fallback.knob("tile_m"), 1);
  EXPECT_EQ(fallback.knob("vthreads"), 2);
  EXPECT_EQ(fallback.knob("vthread_axis"), 1);
  EXPECT_EQ(fallback.knob("double_buffer"), 1);
  EXPECT_EQ(fallback.knob("tile_n"), 16);  // 32 column blocks in two tiles
  ExpectFallbackCompiles(fc);
  ExpectFallbackCompiles(OddArgs());
  ExpectFallbackCompiles({{"m", 1}, {"n", 1000}, {"k", 512}, {"shift", 9}});
}

TEST(VdlaDenseTemplateTest, PrepareAndFinishPadToTheBlocksAndDropThePadding) {
  const target::TargetFacts vdla = Facts("vdla");
  absl::StatusOr<Instantiated> in = InstantiateFallback(Dense(), OddArgs(), vdla);
  ASSERT_TRUE(in.ok()) << in.status();
  const std::vector<NDArray> logical = RandomInputs(in->program.logical_inputs, 7);
  absl::StatusOr<std::vector<NDArray>> packed = PrepareInputs(in->program, logical);
  ASSERT_TRUE(packed.ok()) << packed.status();
  // data [3, 40] -> [3, 3, 1, 16]: row 2, column 37 (block 2, lane 5); column 47 is padding.
  const NDArray& data = (*packed)[0];
  EXPECT_EQ(data.shape(), (std::vector<int64_t>{3, 3, 1, 16}));
  EXPECT_EQ(data.data<int8_t>()[(2 * 3 + 2) * 16 + 5], logical[0].data<int8_t>()[2 * 40 + 37]);
  EXPECT_EQ(data.data<int8_t>()[(2 * 3 + 2) * 16 + 15], 0);
  // weight [100, 40] -> [7, 3, 16, 16]: output 97 (block 6, lane 1), input 20 (block 1, lane 4).
  const NDArray& weight = (*packed)[1];
  EXPECT_EQ(weight.shape(), (std::vector<int64_t>{7, 3, 16, 16}));
  EXPECT_EQ(weight.data<int8_t>()[((6 * 3 + 1) * 16 + 1) * 16 + 4],
            logical[1].data<int8_t>()[97 * 40 + 20]);
  EXPECT_EQ(weight.data<int8_t>()[((6 * 3 + 1) * 16 + 9) * 16 + 4], 0);  // output 105: padding
  // bias [100] -> [7, 1, 16], zeros past 100.
  const NDArray& bias = (*packed)[2];
  EXPECT_EQ(bias.shape(), (std::vector<int64_t>{7, 1, 16}));
  EXPECT_EQ(bias.data<int32_t>()[6 * 16 + 3], logical[2].data<int32_t>()[99]);
  EXPECT_EQ(bias.data<int32_t>()[6 * 16 + 4], 0);
  // The output [3, 7, 1, 16] back to [3, 100].
  std::vector<NDArray> out = AllocateOutputs(in->program);
  for (int64_t i = 0; i < out[0].NumElements(); ++i) {
    out[0].data<int8_t>()[i] = static_cast<int8_t>(i * 7);
  }
  absl::StatusOr<std::vector<NDArray>> logical_out = in->program.finish(out);
  ASSERT_TRUE(logical_out.ok()) << logical_out.status();
  EXPECT_EQ((*logical_out)[0].shape(), (std::vector<int64_t>{3, 100}));
  EXPECT_EQ((*logical_out)[0].data<int8_t>()[1 * 100 + 98],
            out[0].data<int8_t>()[(1 * 7 + 6) * 16 + 2]);
}

TEST(VdlaDenseTemplateTest, ArgumentsItCannotComputeAreNamed) {
  const target::TargetFacts vdla = Facts("vdla");
  OpArgs relu_alone = {{"m", 1}, {"n", 16}, {"k", 16}, {"relu", true}};
  EXPECT_THAT(Dense().space(relu_alone, vdla).status().message(),
              HasSubstr("argument 'relu' goes with 'shift'"));
  OpArgs far = {{"m", 1}, {"n", 16}, {"k", 16}, {"shift", 32}};
  EXPECT_THAT(Dense().space(far, vdla).status().message(),
              HasSubstr("argument 'shift' must be at most 31"));
  OpArgs empty = {{"m", 1}, {"n", 0}, {"k", 16}};
  EXPECT_THAT(Dense().space(empty, vdla).status().message(), HasSubstr("dense_int8.vdla"));
  EXPECT_THAT(Dense().space(OddArgs(), Facts("llvm")).status().message(),
              HasSubstr("dense_int8.vdla: needs a vdla target; target 'llvm"));
}

}  // namespace
}  // namespace tessel::ops::vdla
