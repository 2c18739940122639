#include "hardware/vdla/testing/random_program.h"

#include <random>

namespace tessel::hardware::vdla::testing {
namespace {

// DRAM: random bytes, with valid micro-ops in [kUopBytes, +kUops * 4) and stores going to
// [kStoreBase, kDramBytes).
constexpr int64_t kDramBytes = 64 * 1024;
constexpr int64_t kUopBase = 0;  // in micro-op entries
constexpr int kUops = 64;
constexpr int64_t kStoreBase = 48 * 1024;
// Micro-op indices and loop factors small enough that every index stays in its buffer: at most
// 63 + 2 * 8 + 2 * 8 = 95.
constexpr uint32_t kUopIndexLimit = 64, kWgtIndexLimit = 32;
constexpr uint32_t kMaxIter = 3, kMaxFactor = 8;

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  TestProgram Make();

 private:
  uint32_t Draw(uint32_t lo, uint32_t hi) {  // in [lo, hi]
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_);
  }
  bool Coin() { return Draw(0, 1) == 1; }
  // A LOAD of `type` reading within the first kStoreBase bytes.
  MemInsn RandomLoad(MemType type);
  Insn RandomCompute();
  MemInsn RandomStore();
  template <typename T>
  void RandomLoops(T& insn);

  std::mt19937 rng_;
};

MemInsn Generator::RandomLoad(MemType type) {
  const bool padded = type == MemType::kInput || type == MemType::kAccumulator;
  const int64_t entry_bytes = type == MemType::kInput    ? 16
                              : type == MemType::kWeight ? 256
                              : type == MemType::kUop    ? 4
                                                         : 64;
  MemInsn m = Mem(Opcode::kLoad, type, 0, 0, Draw(1, 3), Draw(1, 6), 0);
  m.x_stride = m.x_size + Draw(0, 3);
  if (padded && Draw(0, 2) == 0) {
    m.y_pad_0 = Draw(0, 2), m.y_pad_1 = Draw(0, 2), m.x_pad_0 = Draw(0, 2), m.x_pad_1 = Draw(0, 2);
  }
  const uint32_t tile = (m.y_pad_0 + m.y_size + m.y_pad_1) * (m.x_pad_0 + m.x_size + m.x_pad_1);
  const uint32_t span = (m.y_size - 1) * m.x_stride + m.x_size;  // DRAM entries touched
  if (type == MemType::kUop) {
    m.sram_base = Draw(0, kUops - tile);
    m.dram_base = static_cast<uint32_t>(kUopBase) + Draw(0, kUops - span);
  } else {
    m.sram_base = Draw(0, 96 - tile);
    m.dram_base = Draw(0, static_cast<uint32_t>(kStoreBase / entry_bytes) - span);
  }
  return m;
}

template <typename T>
void Generator::RandomLoops(T& insn) {
  insn.uop_begin = Draw(0, kUops - 4);
  insn.uop_end = insn.uop_begin + Draw(1, 4);
  insn.iter_out = Draw(1, kMaxIter);
  insn.iter_in = Draw(1, kMaxIter);
  insn.dst_factor_out = Draw(0, kMaxFactor), insn.dst_factor_in = Draw(0, kMaxFactor);
  insn.src_factor_out = Draw(0, kMaxFactor), insn.src_factor_in = Draw(0, kMaxFactor);
}

Insn Generator::RandomCompute() {
  switch (Draw(0, 5)) {
    case 0:
      return RandomLoad(MemType::kUop);
    case 1:
      return RandomLoad(MemType::kAccumulator);
    case 2:
    case 3: {
      GemmInsn g;
      g.reset = Draw(0, 3) == 0;
      RandomLoops(g);
      g.wgt_factor_out = Draw(0, kMaxFactor), g.wgt_factor_in = Draw(0, kMaxFactor);
      return g;
    }
    default: {
      AluInsn a;
      a.op = static_cast<AluOp>(Draw(0, 4));
      a.use_imm = Coin();
      a.imm = static_cast<int32_t>(Draw(0, 65535)) - 32768;
      if (a.op == AluOp::kShr) a.imm = static_cast<int32_t>(Draw(0, 40)) - 8;
      RandomLoops(a);
      return a;
    }
  }
}

MemInsn Generator::RandomStore() {
  MemInsn m = Mem(Opcode::kStore, MemType::kOutput, 0, 0, Draw(1, 3), Draw(1, 4), 0);
  m.x_stride = m.x_size + Draw(0, 3);
  m.sram_base = Draw(0, 96 - m.y_size * m.x_size);
  const uint32_t span = (m.y_size - 1) * m.x_stride + m.x_size;
  m.dram_base = static_cast<uint32_t>(kStoreBase / 16) +
                Draw(0, static_cast<uint32_t>((kDramBytes - kStoreBase) / 16) - span);
  return m;
}

Deps& DepsOf(Insn& insn) {
  return std::visit([](auto& i) -> Deps& { return i.deps; }, insn);
}

TestProgram Generator::Make() {
  TestProgram p;
  p.dram.resize(kDramBytes);
  for (uint8_t& b : p.dram) b = static_cast<uint8_t>(Draw(0, 255));
  std::vector<Uop> uops;
  for (int i = 0; i < kUops; ++i) {
    uops.push_back(
        {Draw(0, kUopIndexLimit - 1), Draw(0, kUopIndexLimit - 1), Draw(0, kWgtIndexLimit - 1)});
  }
  PutUops(p.dram, kUopBase, uops);

  // A walk along load (0) - compute (1) - store (2), starting and ending on compute (FINISH's).
  int module = 1;
  const int groups = static_cast<int>(Draw(1, 8));
  for (int g = 0; g < groups; ++g) {
    const int count = static_cast<int>(Draw(1, 4));
    for (int k = 0; k < count; ++k) {
      if (module == 0) p.insns.push_back(RandomLoad(Coin() ? MemType::kInput : MemType::kWeight));
      if (module == 1) p.insns.push_back(RandomCompute());
      if (module == 2) p.insns.push_back(RandomStore());
    }
    int next = module == 1 ? (Coin() ? 0 : 2) : 1;
    if (g == groups - 1) next = 1;
    if (next == module) continue;
    // The group's last instruction hands over to the next group's first.
    Deps& last = DepsOf(p.insns.back());
    const bool forward = next > module;
    (forward ? last.push_next : last.push_prev) = true;
    module = next;
    p.insns.push_back(module == 0   ? Insn(RandomLoad(Coin() ? MemType::kInput : MemType::kWeight))
                      : module == 1 ? RandomCompute()
                                    : Insn(RandomStore()));
    Deps& first = DepsOf(p.insns.back());
    (forward ? first.pop_prev : first.pop_next) = true;
  }
  FinishInsn finish;
  p.insns.push_back(finish);
  return p;
}

}  // namespace

TestProgram RandomProgram(uint32_t seed) { return Generator(seed).Make(); }

}  // namespace tessel::hardware::vdla::testing
