// The functional simulator on hand-written programs whose results are computed here independently:
// a tiled int8 matrix product against a naive one, padded loads, each ALU operation, stores with a
// stride; and every way a program can be wrong (deadlocks, full command queues, indices out of
// range, no FINISH, instructions behind it, undecodable or unroutable instructions).
#include "hardware/vdla/fsim/fsim.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace tessel::hardware::vdla {
namespace {

constexpr int kBlock = 16;

std::vector<EncodedInsn> Program(const std::vector<Insn>& insns) {
  std::vector<EncodedInsn> out;
  for (const Insn& i : insns) {
    absl::StatusOr<EncodedInsn> e = Encode(i);
    EXPECT_TRUE(e.ok()) << e.status();
    out.push_back(*e);
  }
  return out;
}

MemInsn Mem(Opcode op, MemType type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
            uint32_t stride, Deps deps = {}) {
  return MemInsn{op, deps, type, sram, dram, y, x, stride, 0, 0, 0, 0};
}

constexpr Deps kPopPrev{true, false, false, false};
constexpr Deps kPopNext{false, true, false, false};
constexpr Deps kPushPrev{false, false, true, false};
constexpr Deps kPushNext{false, false, false, true};

void PutUops(std::vector<uint8_t>& dram, int64_t entry, const std::vector<Uop>& uops) {
  for (size_t i = 0; i < uops.size(); ++i) {
    const uint32_t bits = *EncodeUop(uops[i]);
    std::memcpy(dram.data() + (entry + i) * 4, &bits, 4);
  }
}

// C = A . W^T for A (M x K) and W (N x K) int8, accumulated in int32 and narrowed to int8, as one
// load, two GEMMs (reset, then accumulate over the K blocks) and one store.
TEST(FsimTest, TiledMatrixProductMatchesANaiveOne) {
  constexpr int M = 3, K = 32, N = 48, KB = K / kBlock, NB = N / kBlock;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> value(-128, 127);
  std::vector<int8_t> a(M * K), w(N * K);
  for (int8_t& v : a) v = static_cast<int8_t>(value(rng));
  for (int8_t& v : w) v = static_cast<int8_t>(value(rng));

  // DRAM: micro-ops at entry 0 (4 bytes each), A from byte 256 (entries of 16 bytes: row m,
  // block kb at entry 16 + m * KB + kb), W from byte 4096 (entries of 256 bytes: block nb, kb at
  // entry 16 + nb * KB + kb; inside, row o is output channel nb * 16 + o), C from byte 16384.
  std::vector<uint8_t> dram(32768, 0);
  std::vector<Uop> uops;
  for (int kb = 0; kb < KB; ++kb)
    uops.push_back({0, static_cast<uint32_t>(kb), static_cast<uint32_t>(kb)});
  PutUops(dram, 0, uops);
  for (int m = 0; m < M; ++m) std::memcpy(dram.data() + 256 + m * K, a.data() + m * K, K);
  for (int nb = 0; nb < NB; ++nb) {
    for (int kb = 0; kb < KB; ++kb) {
      uint8_t* block = dram.data() + (16 + nb * KB + kb) * 256;
      for (int o = 0; o < kBlock; ++o) {
        std::memcpy(block + o * kBlock, w.data() + (nb * kBlock + o) * K + kb * kBlock, kBlock);
      }
    }
  }
  GemmInsn reset{{}, true, 0, 1, M, NB, NB, 1, 0, 0, 0, 0};
  GemmInsn product{{true, false, false, true}, false, 0, KB, M, NB, NB, 1, KB, 0, 0, KB};
  const std::vector<Insn> program = {
      Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, KB, KB),
      Mem(Opcode::kLoad, MemType::kInput, 0, 16, 1, M * KB, M * KB),
      Mem(Opcode::kLoad, MemType::kWeight, 0, 16, 1, NB * KB, NB * KB, kPushNext),
      reset,
      product,
      Mem(Opcode::kStore, MemType::kOutput, 0, 16384 / 16, 1, M * NB, M * NB,
          {true, false, true, false}),
      FinishInsn{kPopNext},
  };
  absl::StatusOr<RunStats> stats = Simulate(Config{}, Program(program), dram);
  ASSERT_TRUE(stats.ok()) << stats.status();
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      int32_t sum = 0;
      for (int k = 0; k < K; ++k) sum += int32_t{a[m * K + k]} * w[n * K + k];
      // Row m's output entries are m * NB .. m * NB + NB - 1, each 16 channels.
      const int8_t got = static_cast<int8_t>(dram[16384 + m * N + n]);
      ASSERT_EQ(got, static_cast<int8_t>(sum & 0xff)) << "C[" << m << "][" << n << "] = " << sum;
    }
  }
  EXPECT_EQ(stats->instructions, 7);
  EXPECT_EQ(stats->per_module[static_cast<int>(Module::kLoad)], 2);
  EXPECT_EQ(stats->per_module[static_cast<int>(Module::kCompute)], 4);
  EXPECT_EQ(stats->per_module[static_cast<int>(Module::kStore)], 1);
  EXPECT_EQ(stats->gemm_uops, M * NB + M * NB * KB);
  EXPECT_EQ(stats->macs, int64_t{M} * NB * KB * 256);
  EXPECT_EQ(stats->bytes_stored, M * N);
}

// An identity weight makes the output show the input buffer: a 2x2 tile padded by one entry on
// every side lands as a 4x4 tile with zeros around it.
TEST(FsimTest, LoadsPadInputsWithZeroEntries) {
  std::vector<uint8_t> dram(8192, 0);
  PutUops(dram, 0, {{0, 0, 0}});
  for (int o = 0; o < kBlock; ++o) dram[256 + o * kBlock + o] = 1;  // weight entry 1: identity
  // A 2-D array of input entries, 5 per row, from entry 64; entry e holds e in every lane.
  for (int e = 0; e < 20; ++e) std::memset(dram.data() + (64 + e) * 16, e + 1, 16);
  MemInsn tile = Mem(Opcode::kLoad, MemType::kInput, 0, 64 + 6, 2, 2, 5);  // rows 1-2, cols 1-2
  tile.y_pad_0 = tile.y_pad_1 = tile.x_pad_0 = tile.x_pad_1 = 1;
  tile.deps = kPushNext;
  const std::vector<Insn> program = {
      Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1),
      Mem(Opcode::kLoad, MemType::kWeight, 0, 1, 1, 1, 1),
      tile,
      GemmInsn{{}, true, 0, 1, 16, 1, 1, 0, 0, 0, 0, 0},
      GemmInsn{{true, false, false, true}, false, 0, 1, 16, 1, 1, 0, 1, 0, 0, 0},
      Mem(Opcode::kStore, MemType::kOutput, 0, 4096 / 16, 1, 16, 16, {true, false, true, false}),
      FinishInsn{kPopNext},
  };
  ASSERT_TRUE(Simulate(Config{}, Program(program), dram).ok());
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const bool inside = y >= 1 && y <= 2 && x >= 1 && x <= 2;
      const int expected = inside ? 6 + (y - 1) * 5 + (x - 1) + 1 : 0;
      for (int lane = 0; lane < kBlock; ++lane) {
        ASSERT_EQ(dram[4096 + (y * 4 + x) * 16 + lane], expected) << y << "," << x;
      }
    }
  }
}

// Each ALU operation on accumulators loaded from DRAM, with an immediate and with a register
// operand; outputs are the low 8 bits.
TEST(FsimTest, AluOperations) {
  struct Case {
    AluOp op;
    bool use_imm;
    int32_t imm;
    int32_t (*expected)(int32_t dst, int32_t src);
  };
  const Case cases[] = {
      {AluOp::kMin, true, 5, [](int32_t d, int32_t) { return d < 5 ? d : 5; }},
      {AluOp::kMax, true, -3, [](int32_t d, int32_t) { return d > -3 ? d : -3; }},
      {AluOp::kAdd, false, 0, [](int32_t d, int32_t s) { return d + s; }},
      {AluOp::kShr, true, 3, [](int32_t d, int32_t) { return d >> 3; }},
      {AluOp::kShr, true, -2, [](int32_t d, int32_t) { return d * 4; }},
      {AluOp::kMul, false, 0, [](int32_t d, int32_t s) { return d * s; }},
      {AluOp::kMul, true, -7, [](int32_t d, int32_t) { return d * -7; }},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> dram(8192, 0);
    PutUops(dram, 0, {{0, 1, 0}});  // dst accumulator 0, src accumulator 1
    std::vector<int32_t> dst(16), src(16);
    for (int e = 0; e < 16; ++e) {
      dst[e] = (e - 8) * 37;
      src[e] = 3 - e;
    }
    std::memcpy(dram.data() + 64 * 2, dst.data(), 64);  // accumulator entries 2 and 3 (64 bytes)
    std::memcpy(dram.data() + 64 * 3, src.data(), 64);
    const std::vector<Insn> program = {
        Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1),
        Mem(Opcode::kLoad, MemType::kAccumulator, 0, 2, 1, 2, 2),
        AluInsn{kPushNext, c.op, c.use_imm, c.imm, 0, 1, 1, 1, 0, 0, 0, 0},
        Mem(Opcode::kStore, MemType::kOutput, 0, 4096 / 16, 1, 1, 1, {true, false, true, false}),
        FinishInsn{kPopNext},
    };
    absl::StatusOr<RunStats> stats = Simulate(Config{}, Program(program), dram);
    ASSERT_TRUE(stats.ok()) << stats.status();
    EXPECT_EQ(stats->alu_uops, 1);
    for (int e = 0; e < 16; ++e) {
      const int32_t want = c.expected(dst[e], src[e]);
      ASSERT_EQ(static_cast<int8_t>(dram[4096 + e]), static_cast<int8_t>(want & 0xff))
          << ToString(program[2]) << " lane " << e;
    }
  }
}

// STORE walks y_size rows of x_size output entries to DRAM rows x_stride entries apart, leaving
// the bytes between them alone.
TEST(FsimTest, StoresWithAStride) {
  std::vector<uint8_t> dram(8192, 0xee);
  PutUops(dram, 0, {{0, 0, 0}});
  std::vector<int32_t> acc(4 * 16);
  for (int i = 0; i < 64; ++i) acc[i] = i;
  std::memcpy(dram.data() + 1024, acc.data(), 256);  // accumulator entries 16-19
  const std::vector<Insn> program = {
      Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1),
      Mem(Opcode::kLoad, MemType::kAccumulator, 0, 16, 1, 4, 4),
      AluInsn{kPushNext, AluOp::kAdd, true, 0, 0, 1, 4, 1, 1, 0, 0, 0},  // out = acc
      Mem(Opcode::kStore, MemType::kOutput, 0, 256, 2, 2, 3, {true, false, true, false}),
      FinishInsn{kPopNext},
  };
  ASSERT_TRUE(Simulate(Config{}, Program(program), dram).ok());
  // Rows of 2 entries at DRAM entries 256, 257 and 259, 260; entry 258 untouched.
  for (int lane = 0; lane < 16; ++lane) {
    EXPECT_EQ(dram[256 * 16 + lane], lane);
    EXPECT_EQ(dram[257 * 16 + lane], 16 + lane);
    EXPECT_EQ(dram[258 * 16 + lane], 0xee);
    EXPECT_EQ(dram[259 * 16 + lane], 32 + lane);
    EXPECT_EQ(dram[260 * 16 + lane], 48 + lane);
  }
}

absl::Status RunProgram(const std::vector<Insn>& insns, const Config& config = {}) {
  std::vector<uint8_t> dram(8192, 0);
  return Simulate(config, Program(insns), dram).status();
}

TEST(FsimTest, ADeadlockNamesEachWaitingInstruction) {
  const absl::Status s =
      RunProgram({GemmInsn{kPopPrev, true, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0}, FinishInsn{}});
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_EQ(s.message(),
            "deadlock: compute module at instruction 0 (GEMM reset uop=[0,1) iter=1x1 dst=0,0 "
            "src=0,0 wgt=0,0 [pop_prev]) waits for a token on load->compute; last retired: none");
}

// With room for one instruction in the load queue, the fetch unit cannot reach the GEMM that
// frees the load module's first instruction; with two it can.
TEST(FsimTest, AFullCommandQueueStallsFetchInOrder) {
  const std::vector<Insn> program = {
      Mem(Opcode::kLoad, MemType::kInput, 0, 0, 1, 1, 1, kPopNext),
      Mem(Opcode::kLoad, MemType::kInput, 1, 0, 1, 1, 1, kPushNext),
      GemmInsn{kPushPrev, true, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0},
      FinishInsn{kPopPrev},  // after the loads
  };
  Config one;
  one.command_queue_depth = 1;
  const absl::Status s = RunProgram(program, one);
  EXPECT_NE(s.message().find("fetch stalled at instruction 1 on a full queue"), std::string::npos)
      << s;
  EXPECT_NE(s.message().find("load module at instruction 0"), std::string::npos) << s;
  Config two;
  two.command_queue_depth = 2;
  EXPECT_TRUE(RunProgram(program, two).ok()) << RunProgram(program, two);
}

TEST(FsimTest, MalformedProgramsAreErrorsNamingTheInstruction) {
  const Config c;
  EXPECT_EQ(
      RunProgram({Mem(Opcode::kLoad, MemType::kInput, 2047, 0, 1, 2, 2), FinishInsn{}}).message(),
      "instruction 0 (LOAD inp sram=2047 dram=0 y=1 x=2 stride=2 pad=0,0,0,0): input buffer "
      "index 2048 out of range (2048 entries)");
  EXPECT_NE(RunProgram({Mem(Opcode::kLoad, MemType::kWeight, 0, 40, 1, 1, 1), FinishInsn{}})
                .message()
                .find("DRAM entry 40 (bytes 10240-10495) beyond the 8192 bytes of DRAM"),
            std::string::npos);
  EXPECT_NE(RunProgram({GemmInsn{{}, false, 8191, 8193, 1, 1, 0, 0, 0, 0, 0, 0}, FinishInsn{}})
                .message()
                .find("micro-op buffer index 8192 out of range (8192 entries)"),
            std::string::npos);
  EXPECT_EQ(RunProgram({AluInsn{{}, AluOp::kAdd, false, 0, 0, 1, 1, 1, 0, 0, 0, 0}}).message(),
            "the program of 1 instructions ran out without a FINISH");
  EXPECT_EQ(RunProgram({FinishInsn{}, GemmInsn{}}).message(),
            "instruction 0 (FINISH): FINISH retired with 1 instructions not run (queued or not "
            "fetched)");
  std::vector<uint8_t> dram(64, 0);
  EXPECT_EQ(Simulate(c, {EncodedInsn{{7, 0}}}, dram).status().message(),
            "instruction 0: unknown opcode 7");
  MemInsn store = Mem(Opcode::kStore, MemType::kInput, 0, 0, 1, 1, 1);
  EXPECT_NE(RunProgram({store}).message().find("instruction 0: STORE inp"), std::string::npos);
  Config narrow;
  narrow.weight_bits = 4;
  EXPECT_NE(RunProgram({FinishInsn{}}, narrow).message().find("weight_bits 4"), std::string::npos);
}

}  // namespace
}  // namespace tessel::hardware::vdla
