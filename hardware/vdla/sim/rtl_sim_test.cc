// The Verilated RTL against the functional simulator: the hand-written programs leave DRAM bit for
// bit as fsim leaves it (fsim's own tests check those results against independent references),
// retiring as many instructions; GEMM streams a micro-op a cycle; deadlocks, early FINISHes, LOADs
// and STOREs past DRAM's end and a config the model was not built for are errors.
#include "hardware/vdla/sim/rtl_sim.h"

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include "hardware/vdla/fsim/fsim.h"
#include "hardware/vdla/testing/programs.h"
#include "hardware/vdla/testing/random_program.h"

namespace tessel::hardware::vdla {
namespace {

// Runs p on both simulators from the same DRAM; the RTL's result.
RtlResult ExpectSameAsFsim(const testing::TestProgram& p, const RtlOptions& options = {}) {
  const std::vector<EncodedInsn> program = p.Encoded();
  std::vector<uint8_t> fsim_dram = p.dram, rtl_dram = p.dram;
  absl::StatusOr<RunStats> f = Simulate(Config{}, program, fsim_dram);
  absl::StatusOr<RtlResult> r = SimulateRtl(Config{}, program, rtl_dram, options);
  EXPECT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(r.ok()) << r.status();
  if (!f.ok() || !r.ok()) return {};
  EXPECT_EQ(r->instructions, f->instructions);
  size_t differ = 0;
  for (size_t i = 0; i < fsim_dram.size(); ++i) {
    if (fsim_dram[i] != rtl_dram[i] && differ++ < 8) {
      ADD_FAILURE() << "DRAM byte " << i << ": fsim " << int{fsim_dram[i]} << ", RTL "
                    << int{rtl_dram[i]};
    }
  }
  EXPECT_EQ(differ, 0u);
  return *r;
}

TEST(RtlSimTest, TiledMatrixProductsAsFsim) {
  for (auto [m, k, n] : {std::tuple{1, 16, 16}, {3, 32, 48}, {7, 64, 32}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    const testing::Matmul mm = testing::TiledMatmul(m, k, n, 11);
    const RtlResult r = ExpectSameAsFsim(mm.program);
    // Every accumulating micro-op completes once, one a cycle.
    const int64_t steps = int64_t{m} * (n / 16) * (k / 16);
    EXPECT_EQ(r.gemm_steps, steps);
    EXPECT_GT(r.cycles, steps);
  }
}

// Two buffers let the load of the next tile and the store of the last run while a tile computes:
// the same results in fewer cycles (the latency hiding of the paper's Fig. 9 and 10).
TEST(RtlSimTest, DoubleBufferingOverlapsLoadsWithCompute) {
  const testing::Matmul serial = testing::StreamedMatmul(64, 256, 16, 4, false, 9);
  const testing::Matmul overlap = testing::StreamedMatmul(64, 256, 16, 4, true, 9);
  const int64_t serial_cycles = ExpectSameAsFsim(serial.program).cycles;
  const int64_t overlap_cycles = ExpectSameAsFsim(overlap.program).cycles;
  EXPECT_LT(overlap_cycles, serial_cycles * 0.8) << serial_cycles;
  std::printf("64x256x16 in tiles of 4 rows: %lld cycles serialized, %lld double-buffered\n",
              static_cast<long long>(serial_cycles), static_cast<long long>(overlap_cycles));
}

// Random shapes streamed with and without double buffering: loads, GEMMs and stores running at
// once and contending for the DRAM port give fsim's results.
TEST(RtlSimTest, RandomStreamedProductsAsFsim) {
  std::mt19937 rng(21);
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int c = 0; c < 40; ++c) {
    const int rows = draw(1, 4), m = rows * draw(1, 6), k = 16 * draw(1, 8), n = 16 * draw(1, 4);
    const bool overlap = draw(0, 1) == 1;
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n << " rows " << rows
                                      << (overlap ? " overlapped" : ""));
    ExpectSameAsFsim(testing::StreamedMatmul(m, k, n, rows, overlap, c).program,
                     {.memory_latency = draw(1, 64)});
  }
}

TEST(RtlSimTest, PaddedLoadsAsFsim) { ExpectSameAsFsim(testing::PaddedLoad()); }

TEST(RtlSimTest, AluOperationsAsFsim) {
  for (AluOp op : {AluOp::kMin, AluOp::kMax, AluOp::kAdd, AluOp::kShr, AluOp::kMul}) {
    for (int32_t imm : {-7, -2, 0, 3, 5}) {
      SCOPED_TRACE(::testing::Message() << static_cast<int>(op) << " imm " << imm);
      ExpectSameAsFsim(testing::AluProgram(op, true, imm));
    }
    ExpectSameAsFsim(testing::AluProgram(op, false, 0));
  }
}

TEST(RtlSimTest, StridedStoresAsFsim) { ExpectSameAsFsim(testing::StridedStore()); }

TEST(RtlSimTest, MemoryLatencyCostsCyclesNotResults) {
  const testing::Matmul mm = testing::TiledMatmul(3, 32, 48, 5);
  const int64_t fast = ExpectSameAsFsim(mm.program, {.memory_latency = 1}).cycles;
  const int64_t slow = ExpectSameAsFsim(mm.program, {.memory_latency = 64}).cycles;
  EXPECT_GT(slow, fast);
}

// A thousand random valid programs (testing/random_program.h) leave DRAM as fsim leaves it.
TEST(RtlSimTest, ThousandRandomProgramsAsFsim) {
  int64_t instructions = 0, cycles = 0;
  for (uint32_t seed = 0; seed < 1000 && !HasFailure(); ++seed) {
    const testing::TestProgram p = testing::RandomProgram(seed);
    std::string text;
    for (size_t i = 0; i < p.insns.size(); ++i) {
      text += "\n  " + std::to_string(i) + ": " + ToString(p.insns[i]);
    }
    SCOPED_TRACE(::testing::Message() << "seed " << seed << text);
    const RtlResult r = ExpectSameAsFsim(p);
    instructions += r.instructions;
    cycles += r.cycles;
  }
  std::printf("1000 random programs: %lld instructions, %lld cycles\n",
              static_cast<long long>(instructions), static_cast<long long>(cycles));
}

// Programs that overrun a buffer or hold an instruction no module runs: the RTL stops with the
// functional simulator's error, word for word.
TEST(RtlSimTest, MalformedProgramsFailAsInFsim) {
  using testing::Mem;
  auto gemm = [](bool reset, uint32_t begin, uint32_t end, uint32_t iters, uint32_t dst,
                 uint32_t src, uint32_t wgt) {
    return GemmInsn{{}, reset, begin, end, iters, 1, dst, 0, src, 0, wgt, 0};
  };
  AluInsn alu{{}, AluOp::kAdd, false, 0, 0, 1, 3, 1, 0, 0, 1500, 0};
  MemInsn padded = Mem(Opcode::kLoad, MemType::kAccumulator, 2040, 0, 2, 2, 2);
  padded.y_pad_0 = padded.x_pad_1 = 1;
  MemInsn padded_weight = Mem(Opcode::kLoad, MemType::kWeight, 0, 0, 1, 1, 1);
  padded_weight.x_pad_0 = 1;
  MemInsn early = Mem(Opcode::kLoad, MemType::kInput, 0, 0, 1, 1, 1, testing::kPopPrev);
  // Past the output buffer and waiting for a token that never comes: the range is the error.
  MemInsn waiting = Mem(Opcode::kStore, MemType::kOutput, 2047, 0, 1, 2, 2, testing::kPopPrev);
  const std::vector<std::vector<Insn>> programs = {
      {Mem(Opcode::kLoad, MemType::kInput, 2047, 0, 1, 2, 2)},
      {Mem(Opcode::kLoad, MemType::kWeight, 1020, 0, 2, 4, 4)},
      {Mem(Opcode::kLoad, MemType::kUop, 8190, 0, 1, 4, 4)},
      {padded},
      {gemm(true, 8191, 8193, 1, 0, 0, 0)},
      {gemm(true, 0, 1, 3, 1500, 0, 0)},
      {gemm(false, 0, 1, 3, 0, 1500, 0)},
      {gemm(false, 0, 1, 3, 0, 0, 600)},
      {alu},
      {Mem(Opcode::kStore, MemType::kOutput, 2040, 0, 1, 16, 16)},
      {Mem(Opcode::kStore, MemType::kInput, 0, 0, 1, 1, 1)},
      {Mem(Opcode::kLoad, MemType::kOutput, 0, 0, 1, 1, 1)},
      {padded_weight},
      {early},
      {waiting},
  };
  for (std::vector<Insn> insns : programs) {
    insns.insert(insns.begin(), Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1));
    insns.push_back(FinishInsn{});
    const testing::TestProgram p{insns, std::vector<uint8_t>(64 * 1024, 0)};
    std::vector<uint8_t> a = p.dram, b = p.dram;
    const absl::Status fsim = Simulate(Config{}, p.Encoded(), a).status();
    const absl::Status rtl = SimulateRtl(Config{}, p.Encoded(), b).status();
    ASSERT_FALSE(fsim.ok()) << ToString(insns[1]);
    EXPECT_EQ(rtl.message(), fsim.message());
  }
  // An unknown opcode, as raw bits.
  std::vector<EncodedInsn> raw = {EncodedInsn{{7, 0}}};
  std::vector<uint8_t> a(64, 0), b(64, 0);
  EXPECT_EQ(SimulateRtl(Config{}, raw, b).status().message(),
            Simulate(Config{}, raw, a).status().message());
}

// A LOAD of each memory type or a STORE whose DRAM extent passes the end of a 4096-byte DRAM
// (256 input or output entries, 16 weight, 64 accumulator, 1024 micro-op): the RTL refuses it
// with fsim's message, word for word, before it moves anything; a buffer overrun in the same
// instruction is named first.
TEST(RtlSimTest, LoadsAndStoresPastDramFailAsInFsim) {
  using testing::Mem;
  struct Case {
    Insn insn;
    std::string message;  // fsim's, after the instruction
  };
  const std::vector<Case> cases = {
      {Mem(Opcode::kLoad, MemType::kInput, 0, 250, 2, 4, 4),
       "DRAM entries 250-257 (bytes 4000-4127) beyond the 4096 bytes of DRAM"},
      {Mem(Opcode::kLoad, MemType::kWeight, 0, 15, 1, 2, 2),
       "DRAM entries 15-16 (bytes 3840-4351) beyond the 4096 bytes of DRAM"},
      {Mem(Opcode::kLoad, MemType::kAccumulator, 0, 60, 2, 2, 3),
       "DRAM entries 60-64 (bytes 3840-4159) beyond the 4096 bytes of DRAM"},
      {Mem(Opcode::kLoad, MemType::kUop, 0, 1020, 1, 5, 5),
       "DRAM entries 1020-1024 (bytes 4080-4099) beyond the 4096 bytes of DRAM"},
      {Mem(Opcode::kStore, MemType::kOutput, 0, 256, 1, 1, 1),
       "DRAM entry 256 (bytes 4096-4111) beyond the 4096 bytes of DRAM"},
      {Mem(Opcode::kLoad, MemType::kInput, 0, 0xffffffffu, 3, 1, 0xffff),
       "DRAM entries 4294967295-4295098365 (bytes 68719476720-68721573855) beyond the 4096 bytes "
       "of DRAM"},
      {Mem(Opcode::kStore, MemType::kOutput, 2047, 300, 1, 2, 2),
       "output buffer index 2048 out of range (2048 entries)"},
  };
  for (const Case& c : cases) {
    std::vector<Insn> insns = {testing::Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1), c.insn,
                               FinishInsn{}};
    const testing::TestProgram p{insns, std::vector<uint8_t>(4096, 0x5a)};
    std::vector<uint8_t> a = p.dram, b = p.dram;
    const absl::Status fsim = Simulate(Config{}, p.Encoded(), a).status();
    const absl::Status rtl = SimulateRtl(Config{}, p.Encoded(), b).status();
    EXPECT_EQ(fsim.message(), absl::StrCat("instruction 1 (", ToString(c.insn), "): ", c.message));
    EXPECT_EQ(rtl.message(), fsim.message());
    EXPECT_TRUE(absl::IsInvalidArgument(rtl)) << rtl;
    EXPECT_EQ(b, p.dram) << ToString(c.insn) << " wrote DRAM";
  }
}

// Every memory type moved to and from DRAM's last byte, strided rows included: the RTL runs it as
// fsim does.
TEST(RtlSimTest, LoadsAndStoresToDramsLastByteRunAsFsim) {
  using testing::Mem;
  std::vector<uint8_t> dram(4096);
  std::mt19937 rng(5);
  for (uint8_t& byte : dram) byte = static_cast<uint8_t>(rng());
  std::fill(dram.end() - 4, dram.end(), 0);  // the last micro-op: (0, 0, 0)
  const testing::TestProgram p{
      {
          Mem(Opcode::kLoad, MemType::kInput, 0, 244, 2, 2, 10),  // entries to 255
          Mem(Opcode::kLoad, MemType::kWeight, 0, 15, 1, 1, 1, testing::kPushNext),
          Mem(Opcode::kLoad, MemType::kUop, 0, 1023, 1, 1, 1),
          Mem(Opcode::kLoad, MemType::kAccumulator, 0, 62, 2, 1, 1),
          GemmInsn{{.pop_prev = true, .push_next = true}, false, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0},
          Mem(Opcode::kStore, MemType::kOutput, 0, 255, 1, 1, 1, testing::kPopPrevPushPrev),
          FinishInsn{testing::kPopNext},
      },
      dram};
  ExpectSameAsFsim(p);
}

TEST(RtlSimTest, ADeadlockNamesTheLastInstructionRetired) {
  const testing::TestProgram p{
      {testing::Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1),
       GemmInsn{testing::kPopPrev, true, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0}, FinishInsn{}},
      std::vector<uint8_t>(4096, 0)};
  std::vector<uint8_t> dram = p.dram;
  absl::StatusOr<RtlResult> r = SimulateRtl(Config{}, p.Encoded(), dram);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(r.status())) << r.status();
  EXPECT_NE(r.status().message().find("deadlock: nothing ran for"), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("1 of 3 instructions retired, the last instruction 0 (LOAD "
                                      "uop"),
            std::string::npos)
      << r.status();
}

TEST(RtlSimTest, InstructionsLeftBehindFinishAreAnErrorAsInFsim) {
  const testing::TestProgram p{{FinishInsn{}, GemmInsn{}}, std::vector<uint8_t>(64, 0)};
  std::vector<uint8_t> a = p.dram, b = p.dram;
  const absl::Status fsim = Simulate(Config{}, p.Encoded(), a).status();
  const absl::Status rtl = SimulateRtl(Config{}, p.Encoded(), b).status();
  EXPECT_FALSE(rtl.ok());
  EXPECT_EQ(rtl.message(), fsim.message());
}

TEST(RtlSimTest, AConfigTheModelWasNotBuiltForIsRefused) {
  Config other;
  other.block_out = 32;
  other.weight_buffer_bytes = 128 * 1024;
  std::vector<uint8_t> dram(64, 0);
  absl::StatusOr<RtlResult> r = SimulateRtl(other, {}, dram);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the Verilated VDLA was built for batch 1, blocks 16x16"),
            std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace tessel::hardware::vdla
