// conv2d_nchwc.x86's tuning space: its size on Table 2's C1 and C6, the fallback's register tile
// on AVX2 and AVX-512, and points of the space, the new knobs (tile_oh, reorder_reduce, oc_inner)
// in particular, against libtorch.
#include <gtest/gtest.h>

#include <random>

#include "compiler/ops/testing/conv_args.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops {
namespace {

using ops::testing::SquareConvArgs;

const Template& Nchwc() {
  absl::StatusOr<const Template*> t = FindTemplate("conv2d_nchwc.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

target::TargetFacts Avx512() {
  target::TargetFacts facts;
  facts.target = tessel::testing::ParseTarget("llvm -mcpu=skylake-avx512");
  facts.vector_bits = 512;
  facts.vector_registers = 32;
  return facts;
}

target::TargetFacts Avx2() {
  target::TargetFacts facts;
  facts.target = tessel::testing::ParseTarget("llvm -mcpu=haswell");
  facts.vector_bits = 256;
  facts.vector_registers = 16;
  return facts;
}

// Value indices of the knobs after the first five.
std::vector<int64_t> NewKnobs(const search::Config& c) {
  return {c.value_indices().begin() + 5, c.value_indices().end()};
}

// The fallback's register tile (conv2d_nchwc_schedule.cc): at most half the vector registers of
// accumulators, 2, 1 or 4 channel vectors, columns then rows; rows outside channel blocks where
// the input is at least the weights. Expected tiles worked out by hand
// for Table 2 layers on both widths; each fallback also computes what libtorch does.
TEST(Conv2dNchwcSpaceTest, FallbackRegisterTileFitsTheTarget) {
  struct Case {
    const char* layer;
    OpArgs args;
    bool avx512;
    int64_t ocb, reg_h, reg_n;
    int64_t oc_inner;  // 1 where the input is at least the weights
  };
  const Case cases[] = {
      // AVX2 (8 lanes, budget 8): 2 vectors x 2 x 2; 14 columns alone would give 2 x 2.
      {"C7", SquareConvArgs(128, 28, 256, 3, 2, 1), false, 16, 2, 2, 0},
      // 7 x 7 output: 2 vectors fit one position only, 1 vector takes 7 columns.
      {"C10", SquareConvArgs(256, 14, 512, 3, 2, 1), false, 8, 1, 7, 0},
      {"C3", SquareConvArgs(64, 56, 64, 1, 1, 0), false, 16, 1, 4, 1},
      // AVX-512 (16 lanes, budget 16): 4 vectors x 2 x 2 beat 2 vectors x 7.
      {"C7", SquareConvArgs(128, 28, 256, 3, 2, 1), true, 64, 2, 2, 0},
      {"C10", SquareConvArgs(256, 14, 512, 3, 2, 1), true, 32, 1, 7, 0},
      {"C3", SquareConvArgs(64, 56, 64, 1, 1, 0), true, 32, 1, 8, 1},
      {"C4", SquareConvArgs(64, 56, 128, 3, 2, 1), true, 64, 1, 4, 1},
  };
  for (const Case& c : cases) {
    const target::TargetFacts facts = c.avx512 ? Avx512() : Avx2();
    absl::StatusOr<search::ConfigSpace> space = Nchwc().space(c.args, facts);
    ASSERT_TRUE(space.ok()) << space.status();
    const search::Config f = Nchwc().fallback(*space, c.args, facts);
    const std::string where = std::string(c.layer) + (c.avx512 ? " AVX-512 " : " AVX2 ");
    EXPECT_EQ(f.split("tile_oc")[1], c.ocb) << where << f.ToString();
    EXPECT_EQ(f.split("tile_oh")[1], c.reg_h) << where << f.ToString();
    EXPECT_EQ(f.split("tile_ow")[1], c.reg_n) << where << f.ToString();
    EXPECT_EQ(NewKnobs(f)[1], 0) << where;           // reorder_reduce: icc, kh, kw, icb
    EXPECT_EQ(NewKnobs(f)[2], c.oc_inner) << where;  // oc_inner
  }
  // The host's own fallback on a small layer computes what libtorch computes.
  const absl::Status s = testing::CheckFallback(Nchwc(), SquareConvArgs(8, 14, 32, 3, 2, 1),
                                                testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

struct SpaceCount {
  int64_t size = 0, valid = 0;
};

SpaceCount Count(const OpArgs& args) {
  absl::StatusOr<search::ConfigSpace> space = Nchwc().space(args, Avx512());
  EXPECT_TRUE(space.ok()) << space.status();
  SpaceCount count{space->size(), 0};
  for (int64_t i = 0; i < space->size(); ++i) {
    absl::StatusOr<search::Config> c = space->Get(i);
    EXPECT_TRUE(c.ok()) << c.status();
    const bool valid = space->Validate(*c).ok();
    count.valid += valid;
    EXPECT_EQ(valid, c->split("tile_oh")[1] * c->split("tile_ow")[1] <= 32) << c->ToString();
  }
  return count;
}

// C6 (128 -> 128, 28x28, 3x3): tile_ic 8 x tile_oc 7 x tile_ow 6 x unroll_kw 2 x pad_at_tile 2
// x tile_oh 6 x reorder_reduce 6 x oc_inner 2; 21 of the 36 (reg_h, reg_n) pairs keep the tile
// within 32 positions. C1 (3 -> 64, 224 -> 112, 7x7 stride 2): 2 x 7 x 8 x 2 x 2 x 8 x 6 x 2,
// 31 of 64 pairs.
TEST(Conv2dNchwcSpaceTest, SpaceOfTable2C1AndC6) {
  const SpaceCount c6 = Count(SquareConvArgs(128, 28, 128, 3, 1, 1));
  EXPECT_EQ(c6.size, 8 * 7 * 6 * 2 * 2 * 6 * 6 * 2);
  EXPECT_EQ(c6.valid, 8 * 7 * 21 * 2 * 2 * 6 * 2);
  const SpaceCount c1 = Count(SquareConvArgs(3, 224, 64, 7, 2, 3));
  EXPECT_EQ(c1.size, 2 * 7 * 8 * 2 * 2 * 8 * 6 * 2);
  EXPECT_EQ(c1.valid, 2 * 7 * 31 * 2 * 2 * 6 * 2);
}

// Every valid point of a small strided layer schedules and lowers (instantiate never fails on a
// point the filters let through).
TEST(Conv2dNchwcSpaceTest, EveryPointOfASmallSpaceLowers) {
  const OpArgs args = SquareConvArgs(4, 7, 8, 3, 2, 1);
  const target::TargetFacts facts = Avx512();
  absl::StatusOr<search::ConfigSpace> space = Nchwc().space(args, facts);
  ASSERT_TRUE(space.ok()) << space.status();
  int64_t lowered = 0;
  for (int64_t i = 0; i < space->size(); ++i) {
    absl::StatusOr<search::Config> c = space->Get(i);
    ASSERT_TRUE(c.ok()) << c.status();
    if (!space->Validate(*c).ok()) continue;
    absl::StatusOr<OpProgram> p = Nchwc().instantiate(*c, args, facts);
    ASSERT_TRUE(p.ok()) << c->ToString() << ": " << p.status();
    absl::StatusOr<ir::PrimFunc> f = transforms::Lower(p->schedule, p->args, "op");
    ASSERT_TRUE(f.ok()) << c->ToString() << ": " << f.status();
    ++lowered;
  }
  // ic 4: 3 splits, oc 8: 4, ow 4: 3, unroll_kw 2, pad_at_tile 2, oh 4: 3 (every tile within 32
  // positions), 6 orders, oc_inner 2.
  EXPECT_EQ(lowered, 3 * 4 * 3 * 2 * 2 * 3 * 6 * 2);
}

// Every value of the new knobs together, the others random, on a padded layer whose output
// height (15) has odd factors only.
TEST(Conv2dNchwcSpaceTest, EveryNewKnobCombinationComputes) {
  const OpArgs args = SquareConvArgs(8, 15, 16, 3, 1, 1);
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(testing::WithTolerance(2e-3).target);
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<search::ConfigSpace> space = Nchwc().space(args, *facts);
  ASSERT_TRUE(space.ok()) << space.status();
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int64_t oh = 0; oh < space->knob_size(5); ++oh) {
    for (int64_t order = 0; order < space->knob_size(6); ++order) {
      for (int64_t oc_inner = 0; oc_inner < 2; ++oc_inner) {
        // The first random draw of the old knobs that makes a valid point with these.
        for (int attempt = 0; attempt < 100; ++attempt) {
          std::vector<int64_t> v;
          for (int i = 0; i < 5; ++i)
            v.push_back(static_cast<int64_t>(rng() % space->knob_size(i)));
          v.insert(v.end(), {oh, order, oc_inner});
          absl::StatusOr<search::Config> c = space->FromValueIndices(v);
          ASSERT_TRUE(c.ok()) << c.status();
          if (!space->Validate(*c).ok()) continue;
          absl::Status s = testing::CheckConfig(Nchwc(), args, *c, testing::WithTolerance(2e-3));
          EXPECT_TRUE(s.ok()) << s;
          ++checked;
          break;
        }
      }
    }
  }
  EXPECT_EQ(checked, 4 * 6 * 2);
}

// Random points on awkward layers: stride 2 with a prime output height, asymmetric padding and a
// rectangular kernel, dilation, a batch of 2.
TEST(Conv2dNchwcSpaceTest, RandomConfigsOnAwkwardLayers) {
  OpArgs asym = SquareConvArgs(6, 12, 12, 3, 1, 0);
  asym["w"] = 9;
  asym["kw"] = 2;
  asym["pad"] = {2, 0, 1, 1};
  OpArgs dilated = SquareConvArgs(8, 11, 8, 3, 1, 2);
  dilated["dilation"] = {2, 2};
  dilated["n"] = 2;
  for (const OpArgs& args : {SquareConvArgs(8, 13, 16, 3, 2, 1), asym, dilated}) {
    absl::Status s = testing::CheckRandomConfigs(Nchwc(), args, 20, testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
}

// conv2d_transpose_nchwc.x86 schedules its zero-inserted input with the same knobs.
TEST(Conv2dNchwcSpaceTest, TransposeRandomConfigs) {
  absl::StatusOr<const Template*> t = FindTemplate("conv2d_transpose_nchwc.x86");
  ASSERT_TRUE(t.ok()) << t.status();
  const OpArgs args = {{"n", 1},
                       {"ic", 8},
                       {"h", 5},
                       {"w", 5},
                       {"oc", 16},
                       {"kh", 4},
                       {"kw", 4},
                       {"stride", {2, 2}},
                       {"pad", {1, 1, 1, 1}},
                       {"output_padding", {0, 0}}};
  absl::Status s = testing::CheckRandomConfigs(**t, args, 20, testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(Conv2dNchwcSpaceTest, RandomConfigsOfC6) {
  absl::Status s = testing::CheckRandomConfigs(Nchwc(), SquareConvArgs(128, 28, 128, 3, 1, 1), 8,
                                               testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

}  // namespace
}  // namespace tessel::ops
