// int8 dense layers on VDLA, end to end: a schedule (inputs and weights through cache_read into
// the accelerator's buffers, accumulators in its scope, the product tensorized on its GEMM, the
// copies marked dma_copy) lowered, emitted and run on the functional simulator and the RTL; the
// outputs are compared with products computed here, and bad schedules are refused by name.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/codegen/vdla/intrinsics.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/schedule/schedule.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/transforms/pipeline.h"
#include "hardware/vdla/driver/device.h"

namespace tessel::codegen::vdla {
namespace {

using hardware::vdla::Config;
using te::Tensor;

// out[m, n] = int8(sum_k a[m, k] * w[n, k]) in VDLA's blocked layouts: a as [M/batch, K/bi,
// batch, bi], w as [N/bo, K/bi, bo, bi], out as [M/batch, N/bo, batch, bo].
struct Dense {
  int m, n, k;
  // Rows and output blocks per tile.
  int tile_m, tile_n;
  // Virtual threads over the row tiles (1: none): tiles of different threads use different
  // entries, so one's loads overlap another's GEMMs.
  int vthreads = 1;
  // Whether the copies are marked for the DMA and the product tensorized (false: a schedule the
  // accelerator cannot run).
  bool dma = true;
};

struct Built {
  Tensor a, w, out;
  ir::PrimFunc f;
};

absl::StatusOr<Built> Build(const Dense& d, const Config& c) {
  const ir::DataType int8 = ir::DataType::Int(8);
  Tensor a = te::placeholder({d.m / c.batch, d.k / c.block_in, c.batch, c.block_in}, int8, "a");
  Tensor w =
      te::placeholder({d.n / c.block_out, d.k / c.block_in, c.block_out, c.block_in}, int8, "w");
  ir::IterVar ko = te::reduce_axis({0, d.k / c.block_in}, "ko");
  ir::IterVar ki = te::reduce_axis({0, c.block_in}, "ki");
  Tensor acc = te::compute(
      {d.m / c.batch, d.n / c.block_out, c.batch, c.block_out},
      [&](ir::Var mo, ir::Var no, ir::Var b, ir::Var o) {
        return te::sum(
            ir::cast(ir::kInt32, a(mo, ko, b, ki)) * ir::cast(ir::kInt32, w(no, ko, o, ki)),
            {ko, ki});
      },
      "acc");
  Tensor out = te::compute(
      {d.m / c.batch, d.n / c.block_out, c.batch, c.block_out},
      [&](ir::Var mo, ir::Var no, ir::Var b, ir::Var o) {
        return ir::cast(int8, acc(mo, no, b, o));
      },
      "out");

  schedule::Schedule s = schedule::create_schedule({out.op()});
  TESSEL_RETURN_IF_ERROR(s[acc].set_scope(kAccScope));
  absl::StatusOr<Tensor> a_buf = s.cache_read(a, kInputScope, {acc.op()});
  if (!a_buf.ok()) return a_buf.status();
  absl::StatusOr<Tensor> w_buf = s.cache_read(w, kWeightScope, {acc.op()});
  if (!w_buf.ok()) return w_buf.status();

  const auto& oaxis = out.op().as<te::ComputeOpNode>()->axis;
  auto mt = s[out].split(oaxis[0], d.tile_m / c.batch);
  if (!mt.ok()) return mt.status();
  auto nt = s[out].split(oaxis[1], d.tile_n);
  if (!nt.ok()) return nt.status();
  TESSEL_RETURN_IF_ERROR(
      s[out].reorder({mt->outer, nt->outer, mt->inner, nt->inner, oaxis[2], oaxis[3]}));
  if (d.vthreads > 1) {
    auto vt = s[out].split_nparts(mt->outer, d.vthreads);
    if (!vt.ok()) return vt.status();
    TESSEL_RETURN_IF_ERROR(s[out].bind(vt->outer, "vthread"));
  }
  TESSEL_RETURN_IF_ERROR(s[acc].compute_at(s[out], nt->outer));
  const auto* acc_op = acc.op().as<te::ComputeOpNode>();
  const auto& aaxis = acc_op->axis;
  const auto& raxis = acc_op->reduce_axis;
  TESSEL_RETURN_IF_ERROR(
      s[acc].reorder({raxis[0], aaxis[0], aaxis[1], aaxis[2], aaxis[3], raxis[1]}));
  TESSEL_RETURN_IF_ERROR(s[*a_buf].compute_at(s[acc], raxis[0]));
  TESSEL_RETURN_IF_ERROR(s[*w_buf].compute_at(s[acc], raxis[0]));
  if (d.dma) {
    TESSEL_RETURN_IF_ERROR(s[acc].tensorize(aaxis[2], GemmIntrin(c)));
    TESSEL_RETURN_IF_ERROR(
        s[*a_buf].pragma(a_buf->op().as<te::ComputeOpNode>()->axis[0], kDmaCopy));
    TESSEL_RETURN_IF_ERROR(
        s[*w_buf].pragma(w_buf->op().as<te::ComputeOpNode>()->axis[0], kDmaCopy));
    TESSEL_RETURN_IF_ERROR(s[out].pragma(mt->inner, kDmaCopy));
  }
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, w, out}, "dense");
  if (!f.ok()) return f.status();
  return Built{a, w, out, *f};
}

// Runs the dense layer on a device with random operands; expects the outputs of the product
// computed here. Returns the run's report.
hardware::vdla::RunReport RunAndCheck(const Dense& d, const Program& p,
                                      hardware::vdla::Engine engine, uint32_t seed) {
  hardware::vdla::DeviceOptions options;
  options.engine = engine;
  options.dram_bytes = 16 << 20;
  absl::StatusOr<std::unique_ptr<hardware::vdla::Device>> device =
      hardware::vdla::Device::Open(options);
  EXPECT_TRUE(device.ok()) << device.status();
  if (!device.ok()) return {};
  hardware::vdla::Device& dev = **device;
  const Config& c = options.config;

  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-128, 127);
  std::vector<int8_t> a(d.m * d.k), w(d.n * d.k);
  for (int8_t& x : a) x = static_cast<int8_t>(value(rng));
  for (int8_t& x : w) x = static_cast<int8_t>(value(rng));
  // Element (row, col) of the logical matrices in the blocked layouts.
  auto a_at = [&](int64_t r, int64_t col) {
    return ((r / c.batch * (d.k / c.block_in) + col / c.block_in) * c.batch + r % c.batch) *
               c.block_in +
           col % c.block_in;
  };
  auto w_at = [&](int64_t r, int64_t col) {
    return ((r / c.block_out * (d.k / c.block_in) + col / c.block_in) * c.block_out +
            r % c.block_out) *
               c.block_in +
           col % c.block_in;
  };
  auto out_at = [&](int64_t r, int64_t col) {
    return ((r / c.batch * (d.n / c.block_out) + col / c.block_out) * c.batch + r % c.batch) *
               c.block_out +
           col % c.block_out;
  };
  std::vector<uint64_t> args;
  for (size_t bytes : {a.size(), w.size(), static_cast<size_t>(d.m * d.n)}) {
    absl::StatusOr<uint64_t> at = dev.Allocate(bytes, 256);
    EXPECT_TRUE(at.ok()) << at.status();
    args.push_back(at.ok() ? *at : 0);
  }
  std::memcpy(dev.data() + args[0], a.data(), a.size());
  std::memcpy(dev.data() + args[1], w.data(), w.size());
  std::memset(dev.data() + args[2], 0x5a, d.m * d.n);

  absl::StatusOr<hardware::vdla::RunReport> report = RunProgram(dev, p, args);
  EXPECT_TRUE(report.ok()) << report.status() << "\n" << ToString(p);
  if (!report.ok()) return {};
  int wrong = 0;
  for (int64_t r = 0; r < d.m; ++r) {
    for (int64_t col = 0; col < d.n; ++col) {
      int32_t sum = 0;
      for (int64_t i = 0; i < d.k; ++i) {
        sum += int32_t{a[a_at(r, i)]} * int32_t{w[w_at(col, i)]};
      }
      const int8_t want = static_cast<int8_t>(sum & 0xff);
      const int8_t got = static_cast<int8_t>(dev.data()[args[2] + out_at(r, col)]);
      if (got != want && ++wrong <= 5) {
        ADD_FAILURE() << "out[" << r << ", " << col << "] = " << int{got} << ", want " << int{want};
      }
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(report->macs, p.macs);
  return *report;
}

absl::StatusOr<Program> Compile(const Dense& d, const Config& c = {}) {
  absl::StatusOr<Built> built = Build(d, c);
  if (!built.ok()) return built.status();
  return EmitProgram(built->f, c);
}

TEST(VdlaDenseTest, TiledProductMatchesOnBothSimulators) {
  const Dense d{.m = 32, .n = 64, .k = 128, .tile_m = 16, .tile_n = 2};
  absl::StatusOr<Program> p = Compile(d);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->macs, d.m * d.n * d.k);
  RunAndCheck(d, *p, hardware::vdla::Engine::kFunctional, 1);
  const hardware::vdla::RunReport rtl = RunAndCheck(d, *p, hardware::vdla::Engine::kRtl, 2);
  EXPECT_GT(rtl.cycles, d.m * d.n * d.k / 256);
  std::cout << "dense " << d.m << "x" << d.n << "x" << d.k << ": " << p->insns.size()
            << " instructions, " << p->uops.size() << " micro-ops, " << rtl.cycles << " cycles\n";
}

// Two virtual threads: the same product, in fewer cycles (the loads of one thread's tile run
// while the other's GEMMs do).
TEST(VdlaDenseTest, VirtualThreadsHideLoadLatency) {
  Dense d{.m = 64, .n = 64, .k = 256, .tile_m = 16, .tile_n = 2};
  absl::StatusOr<Program> one = Compile(d);
  ASSERT_TRUE(one.ok()) << one.status();
  d.vthreads = 2;
  absl::StatusOr<Program> two = Compile(d);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->input_entries, 2 * one->input_entries);
  EXPECT_EQ(two->acc_entries, 2 * one->acc_entries);
  RunAndCheck(d, *two, hardware::vdla::Engine::kFunctional, 4);
  const int64_t serial = RunAndCheck(d, *one, hardware::vdla::Engine::kRtl, 5).cycles;
  const int64_t hidden = RunAndCheck(d, *two, hardware::vdla::Engine::kRtl, 5).cycles;
  std::cout << "dense " << d.m << "x" << d.n << "x" << d.k << ": " << serial
            << " cycles with one thread, " << hidden << " with two (ideal "
            << int64_t{d.m} * d.n * d.k / 256 << ")\n";
  EXPECT_LT(hidden, serial * 0.8);
}

TEST(VdlaDenseTest, OneTileAndManyTilesAgree) {
  for (const Dense& d : {Dense{.m = 16, .n = 16, .k = 16, .tile_m = 16, .tile_n = 1},
                         Dense{.m = 48, .n = 48, .k = 64, .tile_m = 8, .tile_n = 3},
                         Dense{.m = 64, .n = 32, .k = 256, .tile_m = 64, .tile_n = 2}}) {
    absl::StatusOr<Program> p = Compile(d);
    ASSERT_TRUE(p.ok()) << p.status();
    RunAndCheck(d, *p, hardware::vdla::Engine::kFunctional, 3);
  }
}

TEST(VdlaDenseTest, ATileTooLargeForTheInputBufferIsRefused) {
  // 2048 rows of 16 k-blocks: 2048 input entries a k step, the buffer holds 2048 at most in all.
  Config c;
  c.input_buffer_bytes = 1024;  // 64 entries
  absl::StatusOr<Program> p = Compile({.m = 128, .n = 16, .k = 32, .tile_m = 128, .tile_n = 1}, c);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("needs 128 entries of vdla.inp beside 0 in use, and it "
                                      "holds 64 (choose smaller tiles)"),
            std::string::npos)
      << p.status();
}

TEST(VdlaDenseTest, CopiesWithoutTheDmaPragmaAreRefused) {
  absl::StatusOr<Program> p =
      Compile({.m = 16, .n = 16, .k = 16, .tile_m = 16, .tile_n = 1, .dma = false});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("is written outside a copy and a GEMM"), std::string::npos)
      << p.status();
}

}  // namespace
}  // namespace tessel::codegen::vdla
