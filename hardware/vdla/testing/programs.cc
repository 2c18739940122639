#include "hardware/vdla/testing/programs.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "compiler/support/check.h"

namespace tessel::hardware::vdla::testing {

std::vector<EncodedInsn> TestProgram::Encoded() const {
  std::vector<EncodedInsn> out;
  for (const Insn& i : insns) {
    absl::StatusOr<EncodedInsn> e = Encode(i);
    TESSEL_CHECK(e.ok()) << e.status();
    out.push_back(*e);
  }
  return out;
}

MemInsn Mem(Opcode op, MemType type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
            uint32_t stride, Deps deps) {
  return MemInsn{op, deps, type, sram, dram, y, x, stride, 0, 0, 0, 0};
}

void PutUops(std::vector<uint8_t>& dram, int64_t entry, const std::vector<Uop>& uops) {
  for (size_t i = 0; i < uops.size(); ++i) {
    absl::StatusOr<uint32_t> bits = EncodeUop(uops[i]);
    TESSEL_CHECK(bits.ok()) << bits.status();
    std::memcpy(dram.data() + (entry + i) * 4, &*bits, 4);
  }
}

Matmul TiledMatmul(int m, int k, int n, uint32_t seed) {
  TESSEL_CHECK(k % kBlock == 0 && n % kBlock == 0) << k << " " << n;
  const int kb = k / kBlock, nb = n / kBlock;
  Matmul mm{m, k, n, std::vector<int8_t>(m * k), std::vector<int8_t>(n * k), 0, {}};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-128, 127);
  for (int8_t& v : mm.a) v = static_cast<int8_t>(value(rng));
  for (int8_t& v : mm.w) v = static_cast<int8_t>(value(rng));

  // DRAM: micro-ops at entry 0; A from input entry a_entry (row r, block b at a_entry + r * kb +
  // b); W from weight entry w_entry (block j, b at w_entry + j * kb + b, row o inside it output
  // channel j * 16 + o); C from output entry c_entry.
  const int64_t a_entry = 16 * 1024 / 16;  // after 4096 micro-ops
  const int64_t w_entry = (a_entry * 16 + m * k + 255) / 256;
  const int64_t c_entry = (w_entry * 256 + int64_t{n} * k + 15) / 16;
  mm.c_byte = c_entry * 16;
  std::vector<uint8_t>& dram = mm.program.dram;
  dram.assign(mm.c_byte + int64_t{m} * n, 0);
  std::vector<Uop> uops;
  for (int b = 0; b < kb; ++b) {
    uops.push_back({0, static_cast<uint32_t>(b), static_cast<uint32_t>(b)});
  }
  PutUops(dram, 0, uops);
  std::memcpy(dram.data() + a_entry * 16, mm.a.data(), m * k);
  for (int j = 0; j < nb; ++j) {
    for (int b = 0; b < kb; ++b) {
      uint8_t* block = dram.data() + (w_entry + j * kb + b) * 256;
      for (int o = 0; o < kBlock; ++o) {
        std::memcpy(block + o * kBlock, mm.w.data() + (j * kBlock + o) * k + b * kBlock, kBlock);
      }
    }
  }
  const uint32_t M = m, KB = kb, NB = nb;
  mm.program.insns = {
      Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, KB, KB),
      Mem(Opcode::kLoad, MemType::kInput, 0, static_cast<uint32_t>(a_entry), 1, M * KB, M * KB),
      Mem(Opcode::kLoad, MemType::kWeight, 0, static_cast<uint32_t>(w_entry), 1, NB * KB, NB * KB,
          kPushNext),
      GemmInsn{{}, true, 0, 1, M, NB, NB, 1, 0, 0, 0, 0},
      GemmInsn{{true, false, false, true}, false, 0, KB, M, NB, NB, 1, KB, 0, 0, KB},
      Mem(Opcode::kStore, MemType::kOutput, 0, static_cast<uint32_t>(c_entry), 1, M * NB, M * NB,
          kPopPrevPushPrev),
      FinishInsn{kPopNext},
  };
  return mm;
}

Matmul StreamedMatmul(int m, int k, int n, int rows, bool overlap, uint32_t seed) {
  Matmul mm = TiledMatmul(m, k, n, seed);  // its data and DRAM layout; a program of our own
  TESSEL_CHECK(m % rows == 0) << m << " " << rows;
  const uint32_t KB = k / kBlock, NB = n / kBlock, R = rows;
  const uint32_t buffers = overlap ? 2 : 1;
  const int tiles = m / rows;
  const uint32_t a_entry = std::get<MemInsn>(mm.program.insns[1]).dram_base;
  const uint32_t w_entry = std::get<MemInsn>(mm.program.insns[2]).dram_base;
  const uint32_t c_entry = std::get<MemInsn>(mm.program.insns[5]).dram_base;

  // Buffer b's micro-ops j = (accumulator b * R * NB, input b * R * KB + j, weight j); the loops
  // add row i (i * NB, i * KB) and output block jj (jj, jj * KB of the weights).
  std::vector<Uop> uops;
  for (uint32_t b = 0; b < buffers; ++b) {
    for (uint32_t j = 0; j < KB; ++j) uops.push_back({b * R * NB, b * R * KB + j, j});
  }
  PutUops(mm.program.dram, 0, uops);
  std::vector<Insn>& p = mm.program.insns;
  p = {Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, buffers * KB, buffers * KB),
       Mem(Opcode::kLoad, MemType::kWeight, 0, w_entry, 1, NB * KB, NB * KB)};
  for (int t = 0; t < tiles; ++t) {
    const uint32_t b = t % buffers;
    const bool reuse = static_cast<uint32_t>(t) >= buffers;  // buffer b held tile t - buffers
    MemInsn load =
        Mem(Opcode::kLoad, MemType::kInput, b * R * KB, a_entry + t * R * KB, 1, R * KB, R * KB);
    load.deps.pop_next = reuse;  // compute is done with input buffer b
    load.deps.push_next = true;
    GemmInsn reset{{}, true, b * KB, b * KB + 1, R, NB, NB, 1, 0, 0, 0, 0};
    reset.deps.pop_next = reuse;  // the store of tile t - buffers has read accumulators b
    GemmInsn product{
        {true, false, true, true}, false, b * KB, b * KB + KB, R, NB, NB, 1, KB, 0, 0, KB};
    p.push_back(load);
    p.push_back(reset);
    p.push_back(product);
    p.push_back(Mem(Opcode::kStore, MemType::kOutput, b * R * NB, c_entry + t * R * NB, 1, R * NB,
                    R * NB, kPopPrevPushPrev));
  }
  // FINISH after the last store: steps that take the store->compute tokens left but the last.
  const int left = std::min<int>(tiles, buffers);
  for (int i = 0; i + 1 < left; ++i)
    p.push_back(GemmInsn{kPopNext, true, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  p.push_back(FinishInsn{kPopNext});
  return mm;
}

TestProgram PaddedLoad() {
  TestProgram p;
  p.dram.assign(8192, 0);
  PutUops(p.dram, 0, {{0, 0, 0}});
  for (int o = 0; o < kBlock; ++o) p.dram[256 + o * kBlock + o] = 1;  // weight entry 1: identity
  for (int e = 0; e < 20; ++e) std::memset(p.dram.data() + (64 + e) * 16, e + 1, 16);
  MemInsn tile = Mem(Opcode::kLoad, MemType::kInput, 0, 64 + 6, 2, 2, 5, kPushNext);
  tile.y_pad_0 = tile.y_pad_1 = tile.x_pad_0 = tile.x_pad_1 = 1;
  p.insns = {
      Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1),
      Mem(Opcode::kLoad, MemType::kWeight, 0, 1, 1, 1, 1),
      tile,
      GemmInsn{{}, true, 0, 1, 16, 1, 1, 0, 0, 0, 0, 0},
      GemmInsn{{true, false, false, true}, false, 0, 1, 16, 1, 1, 0, 1, 0, 0, 0},
      Mem(Opcode::kStore, MemType::kOutput, 0, 4096 / 16, 1, 16, 16, kPopPrevPushPrev),
      FinishInsn{kPopNext},
  };
  return p;
}

TestProgram AluProgram(AluOp op, bool use_imm, int32_t imm) {
  TestProgram p;
  p.dram.assign(8192, 0);
  PutUops(p.dram, 0, {{0, 1, 0}});  // dst accumulator 0, src accumulator 1
  for (int e = 0; e < 16; ++e) {
    const int32_t dst = AluDst(e), src = AluSrc(e);
    std::memcpy(p.dram.data() + 64 * 2 + 4 * e, &dst, 4);  // accumulator entries 2 and 3
    std::memcpy(p.dram.data() + 64 * 3 + 4 * e, &src, 4);
  }
  p.insns = {
      Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1),
      Mem(Opcode::kLoad, MemType::kAccumulator, 0, 2, 1, 2, 2),
      AluInsn{kPushNext, op, use_imm, imm, 0, 1, 1, 1, 0, 0, 0, 0},
      Mem(Opcode::kStore, MemType::kOutput, 0, 4096 / 16, 1, 1, 1, kPopPrevPushPrev),
      FinishInsn{kPopNext},
  };
  return p;
}

TestProgram StridedStore() {
  TestProgram p;
  p.dram.assign(8192, 0xee);
  PutUops(p.dram, 0, {{0, 0, 0}});
  for (int32_t i = 0; i < 64; ++i) std::memcpy(p.dram.data() + 1024 + 4 * i, &i, 4);
  p.insns = {
      Mem(Opcode::kLoad, MemType::kUop, 0, 0, 1, 1, 1),
      Mem(Opcode::kLoad, MemType::kAccumulator, 0, 16, 1, 4, 4),
      AluInsn{kPushNext, AluOp::kAdd, true, 0, 0, 1, 4, 1, 1, 0, 0, 0},  // out = acc
      Mem(Opcode::kStore, MemType::kOutput, 0, 256, 2, 2, 3, kPopPrevPushPrev),
      FinishInsn{kPopNext},
  };
  return p;
}

}  // namespace tessel::hardware::vdla::testing
