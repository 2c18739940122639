// int8 dense layers on VDLA, end to end: LowerDense's schedule (operands through cache_read into
// the accelerator's buffers, accumulators in its scope, the product tensorized on its GEMM, the
// copies marked dma_copy) lowered, emitted and run on the functional simulator and the RTL; every
// output compared with the product computed in testing/dense_check; virtual threads give the same
// outputs in fewer cycles; bad shapes, tilings and tiles past the buffers are refused by name.
#include "compiler/ops/vdla/dense.h"

#include <gtest/gtest.h>

#include <iostream>

#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/ops/vdla/testing/dense_check.h"

namespace tessel::ops::vdla {
namespace {

using hardware::vdla::Config;
using hardware::vdla::Engine;
using hardware::vdla::Program;

absl::StatusOr<Program> Compile(const DenseShape& d, const DenseTiling& t,
                                std::optional<DenseTail> tail = std::nullopt,
                                const Config& c = {}) {
  absl::StatusOr<ir::PrimFunc> f = LowerDense(d, t, c, tail);
  if (!f.ok()) return f.status();
  return codegen::vdla::EmitProgram(*f, c);
}

int64_t RunAndCheck(const DenseShape& d, const std::optional<DenseTail>& tail, const Program& p,
                    Engine engine, uint32_t seed) {
  absl::StatusOr<testing::DenseRun> run = testing::RunDense(d, tail, p, engine, seed);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return -1;
  EXPECT_EQ(run->wrong, 0) << run->first_wrong;
  EXPECT_EQ(run->report.macs, d.macs());
  return run->report.cycles;
}

TEST(VdlaDenseTest, TiledProductMatchesOnBothSimulators) {
  const DenseShape d{.m = 32, .n = 64, .k = 128};
  absl::StatusOr<Program> p = Compile(d, {.tile_m = 16, .tile_n = 2});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->macs, d.macs());
  RunAndCheck(d, std::nullopt, *p, Engine::kFunctional, 1);
  const int64_t cycles = RunAndCheck(d, std::nullopt, *p, Engine::kRtl, 2);
  EXPECT_GT(cycles, d.macs() / 256);
  std::cout << "dense " << d.m << "x" << d.n << "x" << d.k << ": " << p->insns.size()
            << " instructions, " << p->uops.size() << " micro-ops, " << cycles << " cycles\n";
}

// Two virtual threads: the same product, in fewer cycles (the loads of one thread's tile run
// while the other's GEMMs do).
TEST(VdlaDenseTest, VirtualThreadsHideLoadLatency) {
  const DenseShape d{.m = 64, .n = 64, .k = 256};
  absl::StatusOr<Program> one = Compile(d, {.tile_m = 16, .tile_n = 2});
  ASSERT_TRUE(one.ok()) << one.status();
  absl::StatusOr<Program> two = Compile(d, {.tile_m = 16, .tile_n = 2, .vthreads = 2});
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->input_entries, 2 * one->input_entries);
  EXPECT_EQ(two->acc_entries, 2 * one->acc_entries);
  RunAndCheck(d, std::nullopt, *two, Engine::kFunctional, 4);
  const int64_t serial = RunAndCheck(d, std::nullopt, *one, Engine::kRtl, 5);
  const int64_t hidden = RunAndCheck(d, std::nullopt, *two, Engine::kRtl, 5);
  std::cout << "dense " << d.m << "x" << d.n << "x" << d.k << ": " << serial
            << " cycles with one thread, " << hidden << " with two (ideal " << d.macs() / 256
            << ")\n";
  EXPECT_LT(hidden, serial * 0.8);
}

// The quantized tail on the ALU: a bias loaded into the accumulators, added, shifted and
// clipped in place, then stored narrowed; alone and with two virtual threads.
TEST(VdlaDenseTest, BiasShiftAndClipRunOnTheAlu) {
  const DenseShape d{.m = 64, .n = 64, .k = 256};
  const DenseTail tail{.shift = 9};
  for (int vthreads : {1, 2}) {
    absl::StatusOr<Program> p = Compile(d, {.tile_m = 16, .tile_n = 2, .vthreads = vthreads}, tail);
    ASSERT_TRUE(p.ok()) << p.status();
    RunAndCheck(d, tail, *p, Engine::kFunctional, 6);
    const int64_t cycles = RunAndCheck(d, tail, *p, Engine::kRtl, 7);
    std::cout << "dense " << d.m << "x" << d.n << "x" << d.k << " with bias, shift, clip, "
              << vthreads << " thread(s): " << cycles << " cycles\n";
  }
}

// A batch of one row (a network's classifier): the virtual threads over the column tiles, the
// weights double-buffered, the tail with relu; both simulators.
TEST(VdlaDenseTest, OneRowSpreadsItsColumnTilesOverVirtualThreads) {
  const DenseShape d{.m = 1, .n = 128, .k = 256};
  const DenseTail tail{.shift = 8, .relu = true};
  absl::StatusOr<Program> one = Compile(d, {.tile_m = 1, .tile_n = 2}, tail);
  ASSERT_TRUE(one.ok()) << one.status();
  const DenseTiling spread{.tile_m = 1,
                           .tile_n = 2,
                           .vthreads = 2,
                           .vthreads_over_columns = true,
                           .double_buffer_weights = true};
  absl::StatusOr<Program> two = Compile(d, spread, tail);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->weight_entries, 4 * one->weight_entries);
  RunAndCheck(d, tail, *two, Engine::kFunctional, 8);
  const int64_t serial = RunAndCheck(d, tail, *one, Engine::kRtl, 9);
  const int64_t hidden = RunAndCheck(d, tail, *two, Engine::kRtl, 9);
  std::cout << "dense 1x128x256 with relu: " << serial << " cycles with one thread, " << hidden
            << " with two over the columns, weights double-buffered\n";
  EXPECT_LT(hidden, serial);
}

TEST(VdlaDenseTest, OneTileAndManyTilesAgree) {
  struct Case {
    DenseShape shape;
    DenseTiling tiling;
  };
  for (const Case& c : {Case{{.m = 16, .n = 16, .k = 16}, {.tile_m = 16, .tile_n = 1}},
                        Case{{.m = 48, .n = 48, .k = 64}, {.tile_m = 8, .tile_n = 3}},
                        Case{{.m = 64, .n = 32, .k = 256}, {.tile_m = 64, .tile_n = 2}}}) {
    absl::StatusOr<Program> p = Compile(c.shape, c.tiling);
    ASSERT_TRUE(p.ok()) << p.status();
    RunAndCheck(c.shape, std::nullopt, *p, Engine::kFunctional, 3);
  }
}

TEST(VdlaDenseTest, ATileTooLargeForTheInputBufferIsRefused) {
  Config c;
  c.input_buffer_bytes = 1024;  // 64 entries; the tile needs 128 rows of one k block at a time
  absl::StatusOr<Program> p =
      Compile({.m = 128, .n = 16, .k = 32}, {.tile_m = 128, .tile_n = 1}, std::nullopt, c);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(p.status().message().find("needs 128 entries of vdla.inp beside 0 in use, and it "
                                      "holds 64 (choose smaller tiles)"),
            std::string::npos)
      << p.status();
}

TEST(VdlaDenseTest, ShapesAndTilingsThatDoNotDivideAreNamed) {
  const Config c;
  struct Case {
    DenseShape shape;
    DenseTiling tiling;
    const char* message;
  };
  for (const Case& t : {
           Case{{.m = 16, .n = 24, .k = 16}, {}, "dense 16x24x16 is not in blocks"},
           Case{{.m = 16, .n = 16, .k = 8}, {}, "dense 16x16x8 is not in blocks"},
           Case{{.m = 16, .n = 16, .k = 16}, {.tile_m = 3}, "tile_m 3 does not divide the 16 rows"},
           Case{
               {.m = 16, .n = 48, .k = 16}, {.tile_n = 2}, "tile_n 2 does not divide the 3 output"},
           Case{{.m = 16, .n = 16, .k = 16},
                {.tile_m = 4, .vthreads = 3},
                "vthreads 3 does not divide the 4 row tiles"},
           Case{{.m = 1, .n = 48, .k = 16},
                {.tile_n = 1, .vthreads = 2, .vthreads_over_columns = true},
                "vthreads 2 does not divide the 3 column tiles"},
       }) {
    absl::StatusOr<ir::PrimFunc> f = LowerDense(t.shape, t.tiling, c);
    ASSERT_FALSE(f.ok()) << t.message;
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(f.status().message().find(t.message), std::string::npos) << f.status();
  }
}

}  // namespace
}  // namespace tessel::ops::vdla
