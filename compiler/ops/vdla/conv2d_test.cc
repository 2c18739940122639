// int8 conv2d on VDLA: layers with padding, stride 2 and 1x1 kernels lowered, emitted and run on
// the functional simulator and the RTL, every output compared with the convolution computed in
// testing/conv2d_check; virtual threads give the same outputs in fewer cycles; bad shapes,
// tilings and padding the DMA cannot make are refused by name.
#include "compiler/ops/vdla/conv2d.h"

#include <gtest/gtest.h>

#include <iostream>

#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/ops/vdla/testing/conv2d_check.h"

namespace tessel::ops::vdla {
namespace {

using hardware::vdla::Engine;

absl::StatusOr<hardware::vdla::Program> Compile(const Conv2dShape& v, const Conv2dTiling& t) {
  const hardware::vdla::Config c;
  absl::StatusOr<ir::PrimFunc> f = LowerConv2d(v, t, c);
  if (!f.ok()) return f.status();
  return codegen::vdla::EmitProgram(*f, c);
}

int64_t RunAndCheck(const Conv2dShape& v, const hardware::vdla::Program& p, Engine engine) {
  absl::StatusOr<testing::Conv2dRun> run = testing::RunConv2d(v, p, engine, 7);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return -1;
  EXPECT_EQ(run->wrong, 0) << run->first_wrong;
  EXPECT_EQ(run->report.macs, v.macs());
  return run->report.cycles;
}

TEST(VdlaConv2dTest, PaddedStridedAndPointwiseLayersMatchOnBothSimulators) {
  struct Case {
    Conv2dShape shape;
    Conv2dTiling tiling;
  };
  for (const Case& c : {
           Case{{.c = 32, .o = 32, .h = 8, .w = 8, .k = 3, .stride = 1, .pad = 1}, {.tile_h = 4}},
           Case{{.c = 16, .o = 32, .h = 11, .w = 7, .k = 3, .stride = 2, .pad = 1},
                {.tile_h = 3, .tile_o = 2}},
           Case{{.c = 32, .o = 16, .h = 6, .w = 6, .k = 1, .stride = 1, .pad = 0}, {.tile_h = 3}},
       }) {
    absl::StatusOr<hardware::vdla::Program> p = Compile(c.shape, c.tiling);
    ASSERT_TRUE(p.ok()) << p.status();
    RunAndCheck(c.shape, *p, Engine::kFunctional);
    const int64_t cycles = RunAndCheck(c.shape, *p, Engine::kRtl);
    std::cout << "conv2d " << c.shape.c << "->" << c.shape.o << " " << c.shape.h << "x" << c.shape.w
              << " k" << c.shape.k << " s" << c.shape.stride << ": " << p->insns.size()
              << " instructions, " << cycles << " cycles, " << c.shape.macs() / 256
              << " of GEMM work\n";
  }
}

TEST(VdlaConv2dTest, VirtualThreadsGiveTheSameOutputsInFewerCycles) {
  const Conv2dShape v{.c = 32, .o = 32, .h = 16, .w = 16, .k = 3, .stride = 1, .pad = 1};
  absl::StatusOr<hardware::vdla::Program> one = Compile(v, {.tile_h = 2, .tile_o = 2});
  absl::StatusOr<hardware::vdla::Program> two =
      Compile(v, {.tile_h = 2, .tile_o = 2, .vthreads = 2});
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(two.ok()) << two.status();
  RunAndCheck(v, *two, Engine::kFunctional);
  const int64_t serial = RunAndCheck(v, *one, Engine::kRtl);
  const int64_t hidden = RunAndCheck(v, *two, Engine::kRtl);
  std::cout << "conv2d 32->32 16x16 k3: " << serial << " cycles with one thread, " << hidden
            << " with two (GEMM work " << v.macs() / 256 << ")\n";
  EXPECT_LT(hidden, serial);
}

// The kernel block in two alternating copies: the next block loads while the GEMMs read this
// one; the same outputs, twice the weight entries, fewer cycles.
TEST(VdlaConv2dTest, DoubleBufferedWeightsGiveTheSameOutputsInFewerCycles) {
  const Conv2dShape v{.c = 64, .o = 32, .h = 14, .w = 14, .k = 3, .stride = 1, .pad = 1};
  absl::StatusOr<hardware::vdla::Program> one =
      Compile(v, {.tile_h = 2, .tile_o = 2, .vthreads = 1});
  absl::StatusOr<hardware::vdla::Program> two =
      Compile(v, {.tile_h = 2, .tile_o = 2, .vthreads = 1, .double_buffer_weights = true});
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->weight_entries, 2 * one->weight_entries);
  RunAndCheck(v, *two, Engine::kFunctional);
  const int64_t single = RunAndCheck(v, *one, Engine::kRtl);
  const int64_t doubled = RunAndCheck(v, *two, Engine::kRtl);
  std::cout << "conv2d 64->32 14x14 k3: " << single << " cycles with one kernel block, " << doubled
            << " with two (GEMM work " << v.macs() / 256 << ")\n";
  EXPECT_LT(doubled, single);
}

TEST(VdlaConv2dTest, BadShapesAndTilingsAreRefused) {
  const hardware::vdla::Config c;
  struct Case {
    Conv2dShape shape;
    Conv2dTiling tiling;
    std::string message;
  };
  const Conv2dShape ok{.c = 32, .o = 32, .h = 8, .w = 8, .k = 3, .stride = 1, .pad = 1};
  for (const Case& x : {
           Case{{.c = 24, .o = 32, .h = 8, .w = 8, .k = 3},
                {},
                "channels 24 -> 32 are not multiples of the blocks 16 and 16"},
           Case{ok, {.tile_h = 3}, "tile_h 3 does not divide the 8 output rows"},
           Case{ok, {.tile_h = 4, .tile_o = 3}, "tile_o 3 does not divide the 2 output channel"},
           Case{ok, {.tile_h = 4, .vthreads = 3}, "vthreads 3 does not divide the 2 row tiles"},
       }) {
    absl::StatusOr<ir::PrimFunc> f = LowerConv2d(x.shape, x.tiling, c);
    ASSERT_FALSE(f.ok()) << x.message;
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(f.status().message().find(x.message), std::string::npos) << f.status();
  }
}

TEST(VdlaConv2dTest, PaddingWiderThanTheDmaIsRefused) {
  // 17 columns of zeros on each side of a 1x1 kernel's tile: the ISA's pad fields hold 15.
  absl::StatusOr<hardware::vdla::Program> p =
      Compile({.c = 16, .o = 16, .h = 2, .w = 2, .k = 1, .stride = 1, .pad = 17}, {.tile_h = 36});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("the DMA pads at most 15"), std::string::npos) << p.status();
}

TEST(VdlaConv2dTest, ATileTooLargeForTheAccumulatorsIsRefused) {
  // 64 rows x 64 columns x 1 block: 4096 accumulator entries, the buffer holds 2048.
  absl::StatusOr<hardware::vdla::Program> p =
      Compile({.c = 16, .o = 16, .h = 64, .w = 64, .k = 1}, {.tile_h = 64});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("entries of vdla.acc beside 0 in use, and it holds 2048"),
            std::string::npos)
      << p.status();
}

}  // namespace
}  // namespace tessel::ops::vdla
