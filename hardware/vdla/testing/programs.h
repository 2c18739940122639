#pragma once

#include <cstdint>
#include <vector>

#include "hardware/vdla/isa.h"

// Hand-written VDLA programs the simulators' tests share: each with the DRAM it runs on and what
// the tests need to compute its expected result independently.
namespace tessel::hardware::vdla::testing {

inline constexpr int kBlock = 16;  // the paper's configuration (batch 1, 16 x 16)
inline constexpr Deps kPopPrev{true, false, false, false};
inline constexpr Deps kPopNext{false, true, false, false};
inline constexpr Deps kPushPrev{false, false, true, false};
inline constexpr Deps kPushNext{false, false, false, true};
inline constexpr Deps kPopPrevPushPrev{true, false, true, false};

struct TestProgram {
  std::vector<Insn> insns;
  std::vector<uint8_t> dram;
  std::vector<EncodedInsn> Encoded() const;  // every instruction must encode
};

MemInsn Mem(Opcode op, MemType type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
            uint32_t stride, Deps deps = {});
void PutUops(std::vector<uint8_t>& dram, int64_t entry, const std::vector<Uop>& uops);

// C = A . W^T for A (m x k) and W (n x k) int8 drawn from `seed`, k and n multiples of 16: one
// load of A, one of W, a GEMM resetting the accumulators and one accumulating over the k blocks,
// one store of C (m x n int8, the low 8 bits of each sum) at byte c_byte.
struct Matmul {
  int m = 0, k = 0, n = 0;
  std::vector<int8_t> a, w;
  int64_t c_byte = 0;
  TestProgram program;
};
Matmul TiledMatmul(int m, int k, int n, uint32_t seed);

// The same product streamed in tiles of `rows` rows of A: the weights loaded once, then per tile a
// LOAD of its rows, a GEMM resetting its accumulators and one accumulating, a STORE of its rows of
// C. With `overlap`, two input and two accumulator buffers alternate (the paper's virtual threads
// of two): the load of tile t + 1 and the store of tile t - 1 run while tile t computes. Without,
// one of each, and every step waits for the one before.
Matmul StreamedMatmul(int m, int k, int n, int rows, bool overlap, uint32_t seed);

// A 2x2 tile of input entries (entry e of a 5-wide DRAM array holds e + 1 in every lane) loaded
// at rows 1-2, columns 1-2 with one entry of padding on every side, passed through an identity
// weight and stored: the 4x4 tile at byte 4096.
TestProgram PaddedLoad();

// Accumulator entries dst (lanes (e - 8) * 37) and src (3 - e) loaded, `op` applied to dst with
// src or the immediate, the output entry stored at byte 4096.
inline constexpr int32_t AluDst(int e) { return (e - 8) * 37; }
inline constexpr int32_t AluSrc(int e) { return 3 - e; }
TestProgram AluProgram(AluOp op, bool use_imm, int32_t imm);

// Accumulator entries 16-19 (lane values 0..63) copied to outputs and stored as 2 rows of 2
// entries, rows 3 entries apart, from DRAM entry 256; every other byte of DRAM is 0xee.
TestProgram StridedStore();

}  // namespace tessel::hardware::vdla::testing
