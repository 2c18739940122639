// int8 dense layers on VDLA, end to end: a schedule (inputs and weights through cache_read into
// the accelerator's buffers, accumulators in its scope, the product tensorized on its GEMM, the
// copies marked dma_copy) lowered, emitted and run on the functional simulator and the RTL; the
// outputs are compared with products computed here, and bad schedules are refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
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
  // The quantized layer's tail on the ALU: out = int8(clip((acc + bias[n]) >> shift, -127, 127))
  // with an int32 bias per output column, instead of the accumulators' low 8 bits.
  bool tail = false;
  int shift = 9;
  const char* tail_scope = kAccScope;  // where the tail's result lives
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
  Tensor bias = te::placeholder({d.n / c.block_out, c.batch, c.block_out}, ir::kInt32, "bias");
  Tensor res = te::compute(
      {d.m / c.batch, d.n / c.block_out, c.batch, c.block_out},
      [&](ir::Var mo, ir::Var no, ir::Var b, ir::Var o) {
        ir::Expr shifted = ir::shift_right(acc(mo, no, b, o) + bias(no, b, o), d.shift);
        return ir::max(ir::min(shifted, 127), -127);
      },
      "res");
  const Tensor last = d.tail ? res : acc;
  Tensor out = te::compute(
      {d.m / c.batch, d.n / c.block_out, c.batch, c.block_out},
      [&](ir::Var mo, ir::Var no, ir::Var b, ir::Var o) {
        return ir::cast(int8, last(mo, no, b, o));
      },
      "out");

  schedule::Schedule s = schedule::create_schedule({out.op()});
  TESSEL_RETURN_IF_ERROR(s[acc].set_scope(kAccScope));
  std::optional<Tensor> bias_buf;
  if (d.tail) {
    TESSEL_RETURN_IF_ERROR(s[res].set_scope(d.tail_scope));
    absl::StatusOr<Tensor> read = s.cache_read(bias, kAccScope, {res.op()});
    if (!read.ok()) return read.status();
    bias_buf = *read;
  }
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
  if (d.tail) {
    // The tail first: the accumulators are computed at the output's tile for the tail there.
    TESSEL_RETURN_IF_ERROR(s[res].compute_at(s[out], nt->outer));
    TESSEL_RETURN_IF_ERROR(s[*bias_buf].compute_at(s[out], nt->outer));
    TESSEL_RETURN_IF_ERROR(s[res].pragma(res.op().as<te::ComputeOpNode>()->axis[0], kAlu));
    TESSEL_RETURN_IF_ERROR(
        s[*bias_buf].pragma(bias_buf->op().as<te::ComputeOpNode>()->axis[0], kDmaCopy));
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
  std::vector<Tensor> args = {a, w, out};
  if (d.tail) args = {a, w, bias, out};
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, args, "dense");
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
  std::uniform_int_distribution<int32_t> bias_value(-20000, 20000);
  std::vector<int32_t> bias(d.n);
  for (int32_t& x : bias) x = bias_value(rng);
  std::vector<size_t> sizes = {a.size(), w.size(), static_cast<size_t>(d.m * d.n)};
  if (d.tail) sizes.insert(sizes.begin() + 2, bias.size() * sizeof(int32_t));
  std::vector<uint64_t> args;
  for (size_t bytes : sizes) {
    absl::StatusOr<uint64_t> at = dev.Allocate(bytes, 256);
    EXPECT_TRUE(at.ok()) << at.status();
    args.push_back(at.ok() ? *at : 0);
  }
  const uint64_t out_base = args.back();
  std::memcpy(dev.data() + args[0], a.data(), a.size());
  std::memcpy(dev.data() + args[1], w.data(), w.size());
  if (d.tail) std::memcpy(dev.data() + args[2], bias.data(), bias.size() * sizeof(int32_t));
  std::memset(dev.data() + out_base, 0x5a, d.m * d.n);

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
      // The bias is laid out as [N/bo, batch, bo]: with batch 1, column col is element col.
      const int32_t clipped = std::clamp((sum + bias[col]) >> d.shift, int32_t{-127}, int32_t{127});
      const int8_t want = d.tail ? static_cast<int8_t>(clipped) : static_cast<int8_t>(sum & 0xff);
      const int8_t got = static_cast<int8_t>(dev.data()[out_base + out_at(r, col)]);
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

// The quantized tail on the ALU: a bias loaded into the accumulators, added, shifted and
// clipped in place, then stored narrowed; alone and with two virtual threads.
TEST(VdlaDenseTest, BiasShiftAndClipRunOnTheAlu) {
  for (int vthreads : {1, 2}) {
    const Dense d{
        .m = 64, .n = 64, .k = 256, .tile_m = 16, .tile_n = 2, .vthreads = vthreads, .tail = true};
    absl::StatusOr<Program> p = Compile(d);
    ASSERT_TRUE(p.ok()) << p.status();
    RunAndCheck(d, *p, hardware::vdla::Engine::kFunctional, 6);
    const hardware::vdla::RunReport rtl = RunAndCheck(d, *p, hardware::vdla::Engine::kRtl, 7);
    std::cout << "dense " << d.m << "x" << d.n << "x" << d.k << " with bias, shift, clip, "
              << vthreads << " thread(s): " << rtl.cycles << " cycles\n";
  }
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

TEST(VdlaDenseTest, AnAluResultOutsideTheAccumulatorsIsRefused) {
  absl::StatusOr<Program> p = Compile({.m = 16,
                                       .n = 16,
                                       .k = 16,
                                       .tile_m = 16,
                                       .tile_n = 1,
                                       .tail = true,
                                       .tail_scope = kInputScope});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("buffer res is computed by the ALU but is not in vdla.acc: "
                                      "the ALU works on accumulators"),
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
