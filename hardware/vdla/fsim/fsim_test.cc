// The functional simulator on hand-written programs whose results are computed here independently:
// a tiled int8 matrix product against a naive one, padded loads, each ALU operation, stores with a
// stride; and every way a program can be wrong (deadlocks, full command queues, indices out of
// range, no FINISH, instructions behind it, undecodable or unroutable instructions).
#include "hardware/vdla/fsim/fsim.h"

#include <gtest/gtest.h>

#include "hardware/vdla/testing/programs.h"

namespace tessel::hardware::vdla {
namespace {

using testing::kBlock;
using testing::kPopNext;
using testing::kPopPrev;
using testing::kPushNext;
using testing::kPushPrev;
using testing::Mem;

std::vector<EncodedInsn> Program(const std::vector<Insn>& insns) {
  return testing::TestProgram{insns, {}}.Encoded();
}

// C in DRAM is A . W^T narrowed to int8, computed here the plain way.
void ExpectProduct(const testing::Matmul& mm, const std::vector<uint8_t>& dram) {
  for (int m = 0; m < mm.m; ++m) {
    for (int n = 0; n < mm.n; ++n) {
      int32_t sum = 0;
      for (int k = 0; k < mm.k; ++k) sum += int32_t{mm.a[m * mm.k + k]} * mm.w[n * mm.k + k];
      const int8_t got = static_cast<int8_t>(dram[mm.c_byte + m * mm.n + n]);
      ASSERT_EQ(got, static_cast<int8_t>(sum & 0xff)) << "C[" << m << "][" << n << "] = " << sum;
    }
  }
}

TEST(FsimTest, TiledMatrixProductMatchesANaiveOne) {
  testing::Matmul mm = testing::TiledMatmul(3, 32, 48, 7);
  std::vector<uint8_t>& dram = mm.program.dram;
  absl::StatusOr<RunStats> stats = Simulate(Config{}, mm.program.Encoded(), dram);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ExpectProduct(mm, dram);
  const int kb = mm.k / kBlock, nb = mm.n / kBlock;
  EXPECT_EQ(stats->instructions, 7);
  EXPECT_EQ(stats->per_module[static_cast<int>(Module::kLoad)], 2);
  EXPECT_EQ(stats->per_module[static_cast<int>(Module::kCompute)], 4);
  EXPECT_EQ(stats->per_module[static_cast<int>(Module::kStore)], 1);
  EXPECT_EQ(stats->gemm_uops, mm.m * nb + mm.m * nb * kb);
  EXPECT_EQ(stats->macs, int64_t{mm.m} * nb * kb * 256);
  EXPECT_EQ(stats->bytes_stored, mm.m * mm.n);
}

TEST(FsimTest, StreamedMatrixProductsMatchANaiveOne) {
  for (bool overlap : {false, true}) {
    for (int rows : {1, 2, 4}) {
      SCOPED_TRACE(::testing::Message() << "overlap " << overlap << ", rows " << rows);
      testing::Matmul mm = testing::StreamedMatmul(8, 64, 32, rows, overlap, 3);
      absl::StatusOr<RunStats> stats = Simulate(Config{}, mm.program.Encoded(), mm.program.dram);
      ASSERT_TRUE(stats.ok()) << stats.status();
      ExpectProduct(mm, mm.program.dram);
    }
  }
}

// An identity weight makes the output show the input buffer: a 2x2 tile padded by one entry on
// every side lands as a 4x4 tile with zeros around it.
TEST(FsimTest, LoadsPadInputsWithZeroEntries) {
  testing::TestProgram p = testing::PaddedLoad();
  ASSERT_TRUE(Simulate(Config{}, p.Encoded(), p.dram).ok());
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const bool inside = y >= 1 && y <= 2 && x >= 1 && x <= 2;
      const int expected = inside ? 6 + (y - 1) * 5 + (x - 1) + 1 : 0;
      for (int lane = 0; lane < kBlock; ++lane) {
        ASSERT_EQ(p.dram[4096 + (y * 4 + x) * 16 + lane], expected) << y << "," << x;
      }
    }
  }
}

// Each ALU operation with an immediate and with a register operand; outputs are the low 8 bits.
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
    testing::TestProgram p = testing::AluProgram(c.op, c.use_imm, c.imm);
    absl::StatusOr<RunStats> stats = Simulate(Config{}, p.Encoded(), p.dram);
    ASSERT_TRUE(stats.ok()) << stats.status();
    EXPECT_EQ(stats->alu_uops, 1);
    for (int e = 0; e < 16; ++e) {
      const int32_t want = c.expected(testing::AluDst(e), testing::AluSrc(e));
      ASSERT_EQ(static_cast<int8_t>(p.dram[4096 + e]), static_cast<int8_t>(want & 0xff))
          << ToString(p.insns[2]) << " lane " << e;
    }
  }
}

// STORE walks y_size rows of x_size output entries to DRAM rows x_stride entries apart, leaving
// the bytes between them alone.
TEST(FsimTest, StoresWithAStride) {
  testing::TestProgram p = testing::StridedStore();
  ASSERT_TRUE(Simulate(Config{}, p.Encoded(), p.dram).ok());
  // Rows of 2 entries at DRAM entries 256, 257 and 259, 260; entry 258 untouched.
  for (int lane = 0; lane < 16; ++lane) {
    EXPECT_EQ(p.dram[256 * 16 + lane], lane);
    EXPECT_EQ(p.dram[257 * 16 + lane], 16 + lane);
    EXPECT_EQ(p.dram[258 * 16 + lane], 0xee);
    EXPECT_EQ(p.dram[259 * 16 + lane], 32 + lane);
    EXPECT_EQ(p.dram[260 * 16 + lane], 48 + lane);
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

// A LOAD or STORE whose DRAM extent (to its last row's last entry, in entries of its type) passes
// the 8192 bytes of DRAM is refused with the extent in entries and bytes; the buffer's range is
// checked first; extents ending at DRAM's last byte are fine.
TEST(FsimTest, LoadsAndStoresPastDramAreRefused) {
  auto load = [](MemType type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
                 uint32_t stride) {
    return RunProgram({Mem(Opcode::kLoad, type, sram, dram, y, x, stride), FinishInsn{}});
  };
  EXPECT_EQ(load(MemType::kInput, 0, 500, 2, 8, 10).message(),
            "instruction 0 (LOAD inp sram=0 dram=500 y=2 x=8 stride=10 pad=0,0,0,0): DRAM entries "
            "500-517 (bytes 8000-8287) beyond the 8192 bytes of DRAM");
  EXPECT_EQ(load(MemType::kUop, 0, 2047, 1, 2, 2).message(),
            "instruction 0 (LOAD uop sram=0 dram=2047 y=1 x=2 stride=2 pad=0,0,0,0): DRAM entries "
            "2047-2048 (bytes 8188-8195) beyond the 8192 bytes of DRAM");
  EXPECT_NE(load(MemType::kAccumulator, 0, 128, 2, 1, 0)
                .message()
                .find("DRAM entry 128 (bytes 8192-8255) beyond"),
            std::string::npos)
      << "rows over one another";
  EXPECT_EQ(load(MemType::kWeight, 1020, 40, 1, 8, 8).message(),
            "instruction 0 (LOAD wgt sram=1020 dram=40 y=1 x=8 stride=8 pad=0,0,0,0): weight "
            "buffer index 1024 out of range (1024 entries)");
  EXPECT_TRUE(load(MemType::kInput, 0, 504, 2, 4, 4).ok());  // entries 504-511: bytes to 8191
  EXPECT_TRUE(load(MemType::kWeight, 0, 31, 1, 1, 1).ok());
  EXPECT_TRUE(load(MemType::kUop, 0, 2046, 1, 2, 2).ok());
  EXPECT_TRUE(load(MemType::kAccumulator, 0, 126, 2, 1, 1).ok());
  EXPECT_TRUE(load(MemType::kInput, 0, 90000, 0, 4, 4).ok());  // moves nothing
  MemInsn padded = Mem(Opcode::kLoad, MemType::kInput, 0, 511, 1, 1, 1);
  padded.x_pad_0 = padded.x_pad_1 = padded.y_pad_1 = 3;  // padding reads no DRAM
  EXPECT_TRUE(RunProgram({padded, FinishInsn{}}).ok());
}

// A STORE whose first rows fit and whose last passes DRAM's end writes none of them.
TEST(FsimTest, AStorePastDramWritesNothing) {
  std::vector<uint8_t> dram(8192, 0xee);
  const std::vector<Insn> program = {
      Mem(Opcode::kStore, MemType::kOutput, 0, 500, 2, 8, 8, kPushPrev), FinishInsn{kPopNext}};
  const absl::Status s = Simulate(Config{}, Program(program), dram).status();
  EXPECT_EQ(s.message(),
            "instruction 0 (STORE out sram=0 dram=500 y=2 x=8 stride=8 pad=0,0,0,0 [push_prev]): "
            "DRAM entries 500-515 (bytes 8000-8255) beyond the 8192 bytes of DRAM");
  EXPECT_EQ(dram, std::vector<uint8_t>(8192, 0xee));
  dram.resize(8256, 0xee);  // now it fits, to the last byte: the outputs (zeros) are written
  ASSERT_TRUE(Simulate(Config{}, Program(program), dram).ok());
  EXPECT_EQ(dram[8000], 0);
  EXPECT_EQ(dram[8255], 0);
  EXPECT_EQ(dram[7999], 0xee);
}

}  // namespace
}  // namespace tessel::hardware::vdla
