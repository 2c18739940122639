#pragma once

// What the module benches share: instructions as fetch queues them, byte views of Verilator's wide
// signals, the DRAM read port's in-order responses and the dependency-token queues around a module.
// A bench drives one cycle as: clk low, eval; set the inputs (a grant may follow the request seen
// after an eval), eval; read the outputs; clk high, eval.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <utility>
#include <variant>

#include "hardware/vdla/isa.h"

namespace tessel::hardware::vdla::testbench {

using Beat = std::array<uint8_t, 16>;

// A test's own instruction: one the test cannot encode is a bug in the test.
inline EncodedInsn EncodeOrDie(const Insn& insn) {
  absl::StatusOr<EncodedInsn> bits = Encode(insn);
  if (!bits.ok()) {
    std::fprintf(stderr, "test instruction %s: %s\n", ToString(insn).c_str(),
                 std::string(bits.status().message()).c_str());
    std::abort();
  }
  return *bits;
}

// Bytes [offset, offset + n) of a Verilator wide signal (32-bit words, least significant first,
// as the hardware's bits are numbered).
template <typename Wide>
void GetBytes(const Wide& w, int offset, void* to, int n) {
  std::memcpy(to, reinterpret_cast<const uint8_t*>(w.data()) + offset, n);
}
template <typename Wide>
void SetBytes(Wide& w, int offset, const void* from, int n) {
  std::memcpy(reinterpret_cast<uint8_t*>(w.data()) + offset, from, n);
}
template <typename Wide>
Beat GetBeat(const Wide& w, int beat = 0) {
  Beat b;
  GetBytes(w, beat * 16, b.data(), 16);
  return b;
}

// Reset for a clock edge, with the inputs as they are.
template <typename Model>
void Reset(Model& m) {
  m.rst = 1;
  m.clk = 0;
  m.eval();
  m.clk = 1;
  m.eval();
  m.rst = 0;
}

// A command queue's entry as fetch writes it: bits 0-127 the instruction, 128-159 its index in the
// program.
struct Queued {
  uint32_t index = 0;
  Insn insn;
  EncodedInsn bits;
};
template <typename Wide>
void SetHead(Wide& head, const Queued& q) {
  SetBytes(head, 0, q.bits.words.data(), 16);
  SetBytes(head, 16, &q.index, 4);
}

inline Deps DepsOf(const Insn& insn) {
  return std::visit([](const auto& i) { return i.deps; }, insn);
}

// DRAM's read side: each granted read is answered `latency` cycles later or after the previous
// answer, whichever is later (in request order, as the memory the design is built for).
class ReadPort {
 public:
  void Request(int64_t cycle, int latency, const Beat& data) {
    int64_t due = cycle + latency;
    if (!answers_.empty()) due = std::max(due, answers_.back().first + 1);
    answers_.emplace_back(due, data);
  }
  bool Due(int64_t cycle) const { return !answers_.empty() && answers_.front().first <= cycle; }
  const Beat& Front() const { return answers_.front().second; }
  void Pop() { answers_.pop_front(); }
  bool empty() const { return answers_.empty(); }

 private:
  std::deque<std::pair<int64_t, Beat>> answers_;
};

// One of the four token queues between modules, as the module under test sees it: `have` when it
// may pop, `room` when it may push. The module's neighbour pushes or pops at random.
struct TokenQueue {
  int count = 0;
  int depth = 2;
  bool have() const { return count > 0; }
  bool room() const { return count < depth; }
};

inline uint32_t Draw(std::mt19937& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}
inline bool Chance(std::mt19937& rng, int percent) { return Draw(rng, 0, 99) < uint32_t(percent); }

}  // namespace tessel::hardware::vdla::testbench
