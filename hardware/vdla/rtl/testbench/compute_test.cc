// vdla_compute on its own (a batch of 2, 8 x 8 blocks; 64 inputs, 32 weights, 64 accumulators, 128
// micro-ops), behind a command queue, with its four token queues filling and draining at random,
// DRAM granting its LOADs' reads at random and answering in order after random latencies, and the
// input and weight buffers (outside the module) answering reads a cycle later. The accumulators and
// micro-ops are inside the module: they are filled by LOADs and seen through the output-buffer
// writes every GEMM and ALU step makes, and through a final dump that shifts each accumulator's
// four bytes out through them. Checked every cycle against compute_reference (isa.h's meaning):
// each output write in order, a micro-op a cycle; instructions start in order as soon as the module
// is free and their tokens and room are there, never before; tokens popped and pushed as the flags
// say; each retires once with its index, FINISH with `finish`; gemm_step once per accumulating
// micro-op; an index past its buffer halts the module with err naming the buffer, the index and the
// instruction, after exactly the writes that precede it in the ISA's order; so does a LOAD reading
// past DRAM's end (dram_bytes: the bench's DRAM), before it reads anything.
#include <gtest/gtest.h>

#include <climits>
#include <optional>

#include "hardware/vdla/rtl/testbench/Vvdla_compute.h"
#include "hardware/vdla/rtl/testbench/bench.h"
#include "hardware/vdla/rtl/testbench/compute_reference.h"

namespace tessel::hardware::vdla::testbench {
namespace {

// DRAM: micro-ops (4 bytes each) from entry 0, accumulator entries from kAccDram on.
constexpr uint32_t kUopDramEntries = 512;
constexpr uint32_t kAccDram = kUopDramEntries * 4 / kAccBytes;
constexpr uint32_t kAccDramEntries = 256;

uint32_t Word(const Uop& u) {
  absl::StatusOr<uint32_t> w = EncodeUop(u);
  return w.ok() ? *w : 0;
}
void PutWord(std::vector<uint8_t>& dram, uint64_t addr, uint32_t w) {
  for (int b = 0; b < 4; ++b) dram[addr + b] = static_cast<uint8_t>(w >> (8 * b));
}
// Micro-ops into DRAM from micro-op entry `at`.
void PutUops(ComputeReference& ref, uint32_t at, const std::vector<Uop>& uops) {
  for (size_t i = 0; i < uops.size(); ++i) PutWord(ref.dram, 4 * (at + i), Word(uops[i]));
}
// Accumulator values into DRAM accumulator entry `entry` (relative to kAccDram).
void PutAcc(ComputeReference& ref, uint32_t entry, const std::vector<int32_t>& values) {
  for (size_t e = 0; e < values.size(); ++e) {
    PutWord(ref.dram, (kAccDram + entry) * kAccBytes + 4 * e, static_cast<uint32_t>(values[e]));
  }
}

MemInsn LoadUops(uint32_t sram, uint32_t dram, uint32_t n, Deps d = {}) {
  return MemInsn{Opcode::kLoad, d, MemType::kUop, sram, dram, 1, n, n};
}
MemInsn LoadAcc(uint32_t sram, uint32_t dram_entry, uint32_t n, Deps d = {}) {
  return MemInsn{Opcode::kLoad, d, MemType::kAccumulator, sram, kAccDram + dram_entry, 1, n, n};
}
// Rows of `n` accumulator entries `stride` apart.
MemInsn LoadAcc(uint32_t sram, uint32_t dram_entry, uint32_t rows, uint32_t n, uint32_t stride) {
  return MemInsn{Opcode::kLoad, {}, MemType::kAccumulator, sram, kAccDram + dram_entry, rows, n,
                 stride};
}
// One micro-op (at `u`) over iter_out entries `stride` apart.
AluInsn AluOver(AluOp op, bool use_imm, int32_t imm, uint32_t u, uint32_t n, uint32_t stride) {
  return AluInsn{{}, op, use_imm, imm, u, u + 1, n, 1, stride, 0, stride, 0};
}

class ComputeBench {
 public:
  // Random buffers and DRAM, then LOADs of every micro-op and accumulator, so all are known: from
  // DRAM's first kUopDepth micro-ops and kAccDepth accumulator entries. The reference runs an
  // instruction when it is queued: DRAM a queued LOAD reads must not change after.
  explicit ComputeBench(uint32_t seed) : rng_(seed) {
    for (int8_t& v : ref.inp) v = static_cast<int8_t>(rng_());
    for (int8_t& v : ref.wgt) v = static_cast<int8_t>(rng_());
    ref.dram.resize((kAccDram + kAccDramEntries) * kAccBytes);
    for (uint32_t i = 1; i < kUopDramEntries; ++i) {
      PutWord(ref.dram, 4 * i,
              Word({Draw(rng_, 0, kAccDepth - 1), Draw(rng_, 0, kInpDepth - 1),
                    Draw(rng_, 0, kWgtDepth - 1)}));
    }
    for (uint32_t e = 0; e < kAccDramEntries; ++e) {
      std::vector<int32_t> values(kAccElems);
      const bool small = Chance(rng_, 50);
      for (int32_t& v : values) {
        v = small ? static_cast<int32_t>(Draw(rng_, 0, 600)) - 300 : static_cast<int32_t>(rng_());
      }
      PutAcc(ref, e, values);
    }
    c_.q_empty = 1;
    Reset(c_);
    Push(LoadUops(0, 0, kUopDepth));
    Push(LoadAcc(0, 0, kAccDepth));
  }

  // Queues `insn`, running it on the reference unless an earlier one failed.
  void Push(const Insn& insn) {
    Pending p;
    p.q = {next_index_++, insn, EncodeOrDie(insn)};
    if (!expected_error_) {
      p.out = ref.Run(insn);
      p.writes.assign(p.out.writes.begin(), p.out.writes.end());
      if (p.out.error) expected_error_ = {p.q.index, *p.out.error};
    }
    queue_.push_back(std::move(p));
  }

  // Each accumulator's four bytes through the outputs: copied to the outputs (adding 0), then
  // shifted right by 8 three times; micro-op 0 becomes (0, 0, 0).
  void DumpAccumulators() {
    Push(LoadUops(0, 0, 1));
    Push(AluOver(AluOp::kAdd, true, 0, 0, kAccDepth, 1));
    for (int k = 0; k < 3; ++k) Push(AluOver(AluOp::kShr, true, 8, 0, kAccDepth, 1));
  }

  void RunAll(int limit = 2000000) {
    for (int c = 0; c < limit && (!queue_.empty() || running_); ++c) {
      Cycle();
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_TRUE(queue_.empty() && !running_) << "instructions left after " << limit << " cycles";
  }
  void Run(int cycles) {
    for (int c = 0; c < cycles && !::testing::Test::HasFailure(); ++c) Cycle();
  }

  void Cycle();

  ComputeReference ref;
  // Popped: load->compute (pop_prev), store->compute (pop_next); pushed: compute->load
  // (push_prev), compute->store (push_next).
  TokenQueue l2c{0, 2}, s2c{0, 2}, c2l{0, 2}, c2s{0, 2};
  int token_percent = 30, grant_percent = 70, max_latency = 8;
  int retired = 0, finishes = 0, writes = 0, err_cycles = 0;
  std::optional<IndexError> error_seen;

 private:
  struct Pending {
    Queued q;
    Outcome out;
    std::deque<OutWrite> writes;  // still to come
    int steps = 0;
    int64_t last_write = -1;
  };
  void CheckOutputs(bool respond);
  void CheckWrite();

  Vvdla_compute c_;
  std::mt19937 rng_;
  std::deque<Pending> queue_;
  std::optional<Pending> running_;
  ReadPort dram_;
  std::optional<std::pair<uint32_t, IndexError>> expected_error_;
  bool halted_ = false;
  uint32_t next_index_ = 0, rd_inp_ = 0, rd_wgt_ = 0;
  int64_t cycle_ = 0;
};

void ComputeBench::CheckWrite() {
  ++writes;
  if (!running_ || running_->writes.empty()) {
    ADD_FAILURE() << "an unexpected write of output entry " << c_.out_wr_entry;
    return;
  }
  const uint32_t index = running_->q.index;
  const OutWrite& w = running_->writes.front();
  EXPECT_EQ(c_.out_wr_entry, w.entry) << "instruction " << index;
  std::array<uint8_t, kAccElems> data;
  GetBytes(c_.out_wr_data, 0, data.data(), kAccElems);
  EXPECT_EQ(data, w.data) << "instruction " << index << " (" << ToString(running_->q.insn)
                          << "), entry " << w.entry << ", write "
                          << running_->out.writes.size() - running_->writes.size();
  // A micro-op a cycle: the writes of one instruction come on consecutive cycles.
  if (running_->last_write >= 0) {
    EXPECT_EQ(cycle_, running_->last_write + 1);
  }
  running_->last_write = cycle_;
  running_->writes.pop_front();
}

// The outputs of a cycle, inputs applied, against the queue, the running instruction and the
// reference.
void ComputeBench::CheckOutputs(bool respond) {
  const bool present = !queue_.empty();
  const Pending* head = present ? &queue_.front() : nullptr;
  const Deps d = head ? DepsOf(head->q.insn) : Deps{};
  const bool ready = head && (!d.pop_prev || l2c.have()) && (!d.pop_next || s2c.have()) &&
                     (!d.push_prev || c2l.room()) && (!d.push_next || c2s.room());
  const bool refused = head && std::holds_alternative<MemInsn>(head->q.insn) && head->out.error;
  EXPECT_EQ(bool(c_.q_pop), !halted_ && !running_ && ready && !refused);
  EXPECT_EQ(bool(c_.tok_pop_prev), c_.q_pop && d.pop_prev);
  EXPECT_EQ(bool(c_.tok_pop_next), c_.q_pop && d.pop_next);
  if (!halted_ && !c_.err) {
    EXPECT_EQ(bool(c_.busy), running_.has_value());
  }
  const bool loading = running_ && std::holds_alternative<MemInsn>(running_->q.insn);
  if (c_.req_valid) {
    EXPECT_TRUE(loading) << "a read with no LOAD running";
  }
  if (c_.out_wr_en) CheckWrite();
  if (c_.gemm_step && running_) ++running_->steps;
  if (c_.retire) {
    EXPECT_TRUE(running_) << "retired with nothing running";
    if (running_) {
      EXPECT_EQ(c_.retire_index, running_->q.index);
      EXPECT_TRUE(running_->writes.empty())
          << running_->writes.size() << " writes missing from " << ToString(running_->q.insn);
      EXPECT_EQ(running_->steps, running_->out.gemm_steps) << ToString(running_->q.insn);
      EXPECT_TRUE(!respond && dram_.empty()) << "retired with reads in flight";
    }
  }
  const Deps rd = running_ ? DepsOf(running_->q.insn) : Deps{};
  EXPECT_EQ(bool(c_.tok_push_prev), c_.retire && rd.push_prev);
  EXPECT_EQ(bool(c_.tok_push_next), c_.retire && rd.push_next);
  EXPECT_EQ(bool(c_.finish),
            c_.retire && running_ && std::holds_alternative<FinishInsn>(running_->q.insn));
  // An index past its buffer: the module stops there, after the writes preceding it.
  if (c_.err) {
    ++err_cycles;
    error_seen = IndexError{c_.err_buffer, c_.err_index};
    if (!expected_error_) {
      ADD_FAILURE() << "err for instruction " << c_.err_insn << ", buffer " << int{c_.err_buffer}
                    << " index " << c_.err_index << ": no index is past its buffer";
    } else {
      EXPECT_EQ(c_.err_insn, expected_error_->first);
      EXPECT_EQ(int{c_.err_buffer}, expected_error_->second.buffer);
      EXPECT_EQ(c_.err_index, expected_error_->second.index);
      if (running_) {
        EXPECT_TRUE(running_->writes.empty())
            << running_->writes.size() << " writes before the error not made";
      }
    }
    halted_ = true;
  } else {
    EXPECT_FALSE(halted_) << "err fell";
  }
}

void ComputeBench::Cycle() {
  SCOPED_TRACE(::testing::Message() << "cycle " << cycle_);
  c_.clk = 0;
  c_.eval();
  const bool present = !queue_.empty();
  c_.q_empty = !present;
  if (present) SetHead(c_.q_head, queue_.front().q);
  c_.dram_bytes = static_cast<uint32_t>(ref.dram.size());
  c_.have_pop_prev = l2c.have();
  c_.have_pop_next = s2c.have();
  c_.room_push_prev = c2l.room();
  c_.room_push_next = c2s.room();
  const bool respond = dram_.Due(cycle_);
  c_.resp_valid = respond;
  if (respond) SetBytes(c_.resp_data, 0, dram_.Front().data(), 16);
  // The input and weight buffers: what was asked for last cycle (zeros past the buffer).
  std::array<int8_t, kInpBytes> inp{};
  std::array<int8_t, kWgtBytes> wgt{};
  if (rd_inp_ < kInpDepth) std::memcpy(inp.data(), &ref.inp[rd_inp_ * kInpBytes], kInpBytes);
  if (rd_wgt_ < kWgtDepth) std::memcpy(wgt.data(), &ref.wgt[rd_wgt_ * kWgtBytes], kWgtBytes);
  SetBytes(c_.inp_rd_data, 0, inp.data(), kInpBytes);
  SetBytes(c_.wgt_rd_data, 0, wgt.data(), kWgtBytes);
  c_.req_grant = 0;
  c_.eval();
  const bool grant = c_.req_valid && Chance(rng_, grant_percent);
  c_.req_grant = grant;
  c_.eval();

  CheckOutputs(respond);
  rd_inp_ = c_.inp_rd_entry;
  rd_wgt_ = c_.wgt_rd_entry;
  if (grant) {
    Beat b{};
    for (int i = 0; i < 16; ++i) {
      const uint64_t a = uint64_t{c_.req_addr} + i;
      b[i] = a < ref.dram.size() ? ref.dram[a] : 0;
    }
    dram_.Request(cycle_, Draw(rng_, 1, max_latency), b);
  }
  const bool pop = c_.q_pop, retire = c_.retire, finish = c_.finish;
  const bool pop_prev = c_.tok_pop_prev, pop_next = c_.tok_pop_next;
  const bool push_prev = c_.tok_push_prev, push_next = c_.tok_push_next;

  c_.clk = 1;
  c_.eval();
  ++cycle_;
  if (respond) dram_.Pop();
  if (retire) {
    running_.reset();
    ++retired;
    finishes += finish;
  }
  if (pop && present) {
    running_ = std::move(queue_.front());
    queue_.pop_front();
  }
  l2c.count -= pop_prev;
  s2c.count -= pop_next;
  c2l.count += push_prev;
  c2s.count += push_next;
  EXPECT_TRUE(c2l.count <= c2l.depth && c2s.count <= c2s.depth) << "a push into a full queue";
  for (TokenQueue* given : {&l2c, &s2c}) {
    if (given->room() && Chance(rng_, token_percent)) ++given->count;
  }
  for (TokenQueue* taken : {&c2l, &c2s}) {
    if (taken->have() && Chance(rng_, token_percent)) --taken->count;
  }
}

TEST(ComputeTest, AluApplyMeansWhatIsaSays) {
  EXPECT_EQ(AluApply(AluOp::kMin, -5, 3), -5);
  EXPECT_EQ(AluApply(AluOp::kMax, -5, 3), 3);
  EXPECT_EQ(AluApply(AluOp::kAdd, INT_MAX, 1), INT_MIN);
  EXPECT_EQ(AluApply(AluOp::kMul, 0x10001, 0x10000), 0x10000);
  EXPECT_EQ(AluApply(AluOp::kMul, -3, 7), -21);
  EXPECT_EQ(AluApply(AluOp::kShr, -9, 1), -5);  // arithmetic: rounds toward -inf
  EXPECT_EQ(AluApply(AluOp::kShr, 3, -4), 48);
  EXPECT_EQ(AluApply(AluOp::kShr, INT_MIN, 40), -1);
  EXPECT_EQ(AluApply(AluOp::kShr, 1, -40), INT_MIN);
}

// A GEMM over four micro-ops in a 2 x 3 loop: consecutive and nearby steps accumulate into the
// same entry (the module's bypass), after a reset of those entries; every accumulator then dumped.
TEST(ComputeTest, GemmAccumulatesInt8ProductsIntoInt32) {
  ComputeBench bench(51);
  PutUops(bench.ref, 400, {{5, 1, 2}, {5, 3, 4}, {6, 1, 2}, {5, 0, 0}});
  bench.Push(LoadUops(20, 400, 4));
  bench.Push(GemmInsn{{}, true, 20, 24, 2, 3, 7, 1, 5, 2, 3, 1});
  bench.Push(GemmInsn{{}, false, 20, 24, 2, 3, 7, 1, 5, 2, 3, 1});
  bench.Push(GemmInsn{{}, false, 21, 22, 1, 1, 0, 0, 0, 0, 0, 0});  // once more into entry 5
  bench.DumpAccumulators();
  bench.RunAll();
  EXPECT_EQ(bench.err_cycles, 0);
  EXPECT_EQ(bench.writes, 24 + 24 + 1 + 4 * int{kAccDepth});
}

// Each ALU operation with a source accumulator and with immediates, on values at the extremes;
// the destination (and the source, changed by nothing) dumped in full each time.
TEST(ComputeTest, AluOperationsOnKnownValues) {
  std::vector<int32_t> dst = {0,       1,      -1,     7,      -7, 255, -256, INT_MAX,
                              INT_MIN, 123456, -98765, 0x7f00, 3,  100, -100, 31};
  std::vector<int32_t> src = {5, -3, 0, 31, -31, 40, -40, 2, 1, -1, 0x10000, 8, 64, -5, 9, 1000};
  dst.resize(kAccElems, 42);
  src.resize(kAccElems, -42);
  for (AluOp op : {AluOp::kMin, AluOp::kMax, AluOp::kAdd, AluOp::kShr, AluOp::kMul}) {
    for (int32_t imm : {INT_MIN, 0, 3, -3, 31, -31, 32767, -32768}) {
      const bool use_imm = imm != INT_MIN;
      SCOPED_TRACE(::testing::Message()
                   << "op " << int(op) << (use_imm ? " imm " : " src ") << (use_imm ? imm : 0));
      ComputeBench bench(53);
      PutAcc(bench.ref, 100, dst);
      PutAcc(bench.ref, 101, src);
      PutUops(bench.ref, 300, {{10, 11, 0}, {12, 12, 0}});
      bench.Push(LoadAcc(10, 100, 2));
      bench.Push(LoadAcc(12, 100, 1));
      bench.Push(LoadUops(30, 300, 2));
      // dst 10 from src 11; entry 12 with itself as the source.
      bench.Push(AluInsn{{}, op, use_imm, use_imm ? imm : 0, 30, 32, 1, 1, 0, 0, 0, 0});
      bench.DumpAccumulators();
      bench.RunAll();
      EXPECT_EQ(bench.err_cycles, 0);
    }
  }
}

// A random valid instruction on the reference's current buffers: every index in range.
Insn RandomInsn(ComputeBench& bench, std::mt19937& rng) {
  auto deps = [&] {
    return Deps{Chance(rng, 30), Chance(rng, 30), Chance(rng, 30), Chance(rng, 30)};
  };
  const uint32_t kind = Draw(rng, 0, 99);
  if (kind < 10) {
    const uint32_t y = Draw(rng, 1, 2), x = Draw(rng, 1, 16);
    return MemInsn{Opcode::kLoad,
                   deps(),
                   MemType::kUop,
                   Draw(rng, 0, kUopDepth - y * x),
                   Draw(rng, 0, kUopDramEntries - 2 * 20 - 1),
                   y,
                   x,
                   x + Draw(rng, 0, 4)};
  }
  if (kind < 20) {
    MemInsn m{Opcode::kLoad,
              deps(),
              MemType::kAccumulator,
              0,
              kAccDram + Draw(rng, 0, 200),
              Draw(rng, 0, 2),
              Draw(rng, 0, 3),
              0};
    m.x_stride = m.x_size + Draw(rng, 0, 3);
    if (Chance(rng, 50)) {
      m.y_pad_0 = Draw(rng, 0, 1), m.y_pad_1 = Draw(rng, 0, 1);
      m.x_pad_0 = Draw(rng, 0, 1), m.x_pad_1 = Draw(rng, 0, 1);
    }
    const uint32_t entries =
        (m.y_pad_0 + m.y_size + m.y_pad_1) * (m.x_pad_0 + m.x_size + m.x_pad_1);
    m.sram_base = Draw(rng, 0, kAccDepth - entries);
    return m;
  }
  if (kind < 25) return FinishInsn{deps()};
  const bool gemm = kind < 60;
  for (int attempt = 0;; ++attempt) {
    const bool tight = attempt > 50;  // one step: always in range
    const uint32_t begin = Draw(rng, 0, kUopDepth - 1);
    const uint32_t end = Chance(rng, 3) ? begin : std::min(kUopDepth, begin + Draw(rng, 1, 4));
    const uint32_t n_out = tight ? 1 : Draw(rng, Chance(rng, 3) ? 0 : 1, 3);
    const uint32_t n_in = tight ? 1 : Draw(rng, 1, 3);
    auto f = [&](uint32_t hi) { return tight ? 0 : Draw(rng, 0, hi); };
    Insn insn;
    if (gemm) {
      insn = GemmInsn{deps(), Chance(rng, 20),
                      begin,  tight ? begin + 1 : end,
                      n_out,  n_in,
                      f(8),   f(8),
                      f(8),   f(8),
                      f(4),   f(4)};
    } else {
      const AluOp op = static_cast<AluOp>(Draw(rng, 0, 4));
      const bool use_imm = Chance(rng, 50);
      const int32_t imm = op == AluOp::kShr ? static_cast<int32_t>(Draw(rng, 0, 71)) - 31
                                            : static_cast<int32_t>(Draw(rng, 0, 65535)) - 32768;
      insn = AluInsn{deps(), op,   use_imm, imm,  begin, tight ? begin + 1 : end,
                     n_out,  n_in, f(8),    f(8), f(8),  f(8)};
    }
    if (!bench.ref.Run(insn, /*dry=*/true).error) return insn;
  }
}

TEST(ComputeTest, RandomProgramsAsTheReference) {
  for (uint32_t seed : {61u, 67u}) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    ComputeBench bench(seed);
    std::mt19937 rng(seed + 1);
    int finishes = 0;
    for (int n = 0; n < 1000; ++n) {
      const Insn insn = RandomInsn(bench, rng);
      finishes += std::holds_alternative<FinishInsn>(insn);
      bench.Push(insn);
    }
    bench.DumpAccumulators();
    bench.RunAll();
    EXPECT_EQ(bench.retired, 2 + 1000 + 5);
    EXPECT_EQ(bench.finishes, finishes);
    EXPECT_EQ(bench.err_cycles, 0);
  }
}

// FINISH with each token flag: it waits while its token (or room) is missing, then runs at once.
TEST(ComputeTest, WaitsForEachTokenAndRoom) {
  ComputeBench bench(71);
  bench.token_percent = 0;
  bench.RunAll();
  struct Flag {
    Deps deps;
    TokenQueue* queue;
    bool pops;  // else pushes
  };
  for (const Flag& f :
       {Flag{{.pop_prev = true}, &bench.l2c, true}, Flag{{.pop_next = true}, &bench.s2c, true},
        Flag{{.push_prev = true}, &bench.c2l, false},
        Flag{{.push_next = true}, &bench.c2s, false}}) {
    SCOPED_TRACE(ToString(FinishInsn{f.deps}));
    f.queue->count = f.pops ? 0 : f.queue->depth;
    const int retired = bench.retired;
    bench.Push(FinishInsn{f.deps});
    bench.Run(30);
    EXPECT_EQ(bench.retired, retired);
    f.queue->count = f.pops ? 1 : f.queue->depth - 1;
    bench.Run(2);  // started, then retired
    EXPECT_EQ(bench.retired, retired + 1);
    EXPECT_EQ(f.queue->count, f.pops ? 0 : f.queue->depth);
  }
  EXPECT_EQ(bench.finishes, 4);
}

struct BadCase {
  const char* what;
  std::vector<Uop> uops;  // loaded to micro-op entry 10
  Insn insn;
  IndexError error;
};

// Runs c.insn, its tokens there, after a LOAD of its micro-ops and before a FINISH: the LOAD
// retires, the module halts with err after the writes that precede the bad index in the ISA's
// order (those of the steps before it), and runs nothing after.
void ExpectHalts(const BadCase& c) {
  SCOPED_TRACE(c.what);
  ComputeBench bench(73);
  bench.l2c.count = bench.s2c.count = 2;
  PutUops(bench.ref, 450, c.uops);
  bench.Push(LoadUops(10, 450, c.uops.size()));
  Insn bad = c.insn;
  std::visit([](auto& i) { i.deps = {true, true, false, false}; }, bad);
  bench.Push(bad);
  bench.Push(FinishInsn{});
  bench.Run(3000);
  EXPECT_EQ(bench.retired, 3);  // the initial LOADs and the micro-ops'
  EXPECT_EQ(bench.finishes, 0);
  EXPECT_GT(bench.err_cycles, 1000);
  EXPECT_TRUE(bench.error_seen == c.error);
}

// Each buffer's index past its end, in fsim's order of checks (micro-op, then accumulator, input,
// weight; an ALU's destination, then its source).
TEST(ComputeTest, IndexPastBufferHalts) {
  const uint32_t acc = kAccDepth, inp = kInpDepth, wgt = kWgtDepth, uop = kUopDepth;
  MemInsn padded = LoadAcc(acc - 5, 0, 1);
  padded.y_pad_0 = padded.y_pad_1 = padded.x_pad_0 = padded.x_pad_1 = 1;
  const std::vector<BadCase> cases = {
      {"uop load", {}, LoadUops(uop - 8, 0, 10), {kBufUop, uop}},
      {"padded acc load", {}, padded, {kBufAcc, acc}},
      {"acc load far", {}, LoadAcc(200, 0, 1), {kBufAcc, 200}},
      // DRAM: micro-op entries 0-4607, accumulator entries 0-287 (kAccDram + 255 the last).
      {"uop load past dram", {}, LoadUops(0, 4607, 2), {kBufDram, 4608}},
      {"acc load past dram", {}, LoadAcc(0, 250, 2, 3, 4), {kBufDram, 288}},
      {"acc load far past dram",
       {},
       LoadAcc(0, 0xffffff00u, 1),
       {kBufDram, kAccDram + 0xffffff00u}},
      // Its end, 2^26 entries of 64 bytes, is 0 in 32 bits.
      {"acc load past dram by 2^32 bytes",
       {},
       LoadAcc(0, (1u << 26) - 1 - kAccDram, 1),
       {kBufDram, (1u << 26) - 1}},
      {"buffer before dram", {}, LoadAcc(acc - 1, 255, 2), {kBufAcc, acc}},
      {"gemm dst",
       {{10, 0, 0}},
       GemmInsn{{}, false, 10, 11, 3, 1, 30, 0, 0, 0, 0, 0},
       {kBufAcc, 70}},
      {"gemm src",
       {{1, inp - 4, 0}},
       GemmInsn{{}, false, 10, 11, 1, 3, 0, 0, 0, 2, 0, 0},
       {kBufInput, inp}},
      {"gemm wgt",
       {{1, 0, wgt - 2}},
       GemmInsn{{}, false, 10, 11, 1, 3, 0, 0, 0, 0, 0, 1},
       {kBufWeight, wgt}},
      {"gemm dst before src",
       {{1, inp - 4, 0}},
       GemmInsn{{}, false, 10, 11, 2, 1, acc - 1, 0, 4, 0, 0, 0},
       {kBufAcc, acc}},
      {"alu src",
       {{1, acc - 2, 0}},
       AluInsn{{}, AluOp::kAdd, false, 0, 10, 11, 2, 1, 0, 0, 2, 0},
       {kBufAcc, acc}},
      {"uop index at once",
       {},
       AluInsn{{}, AluOp::kMax, true, 1, uop, uop + 2, 1, 1, 0, 0, 0, 0},
       {kBufUop, uop}},
  };
  for (const BadCase& c : cases) ExpectHalts(c);
}

// The same indices where the ISA does not check them: a GEMM with reset reads no input or weight,
// an ALU with an immediate no source.
TEST(ComputeTest, UncheckedIndicesAreFine) {
  const uint32_t inp = kInpDepth, wgt = kWgtDepth;
  for (const Insn& fine : {Insn{GemmInsn{{}, true, 10, 11, 1, 3, 0, 0, 0, 30, 0, 30}},
                           Insn{AluInsn{{}, AluOp::kAdd, true, 5, 10, 11, 2, 1, 0, 0, 40, 0}}}) {
    ComputeBench bench(79);
    PutUops(bench.ref, 450, {{1, inp - 1, wgt - 1}});
    bench.Push(LoadUops(10, 450, 1));
    bench.Push(fine);
    bench.RunAll();
    EXPECT_EQ(bench.err_cycles, 0);
  }
}

// LOADs reading DRAM up to its last byte (padding around them reads none) run.
TEST(ComputeTest, LoadsToDramsLastByteRun) {
  MemInsn padded = LoadAcc(20, 255, 1);
  padded.y_pad_0 = padded.y_pad_1 = padded.x_pad_0 = padded.x_pad_1 = 1;
  for (const MemInsn& fine :
       {LoadUops(0, 4600, 8), LoadAcc(0, 245, 2, 2, 9), padded, LoadAcc(0, 0xffff0000u, 0, 1, 1)}) {
    SCOPED_TRACE(ToString(fine));
    ComputeBench bench(83);
    bench.Push(fine);
    bench.DumpAccumulators();
    bench.RunAll();
    EXPECT_EQ(bench.err_cycles, 0);
    EXPECT_EQ(bench.retired, 2 + 1 + 5);
  }
}

// A micro-op index that runs past the buffer after in-range steps: the steps before it (here
// micro-ops kUopDepth-2 and kUopDepth-1) complete, as in fsim, then the module stops. (Stage A
// once halted with stage B's step in flight, dropping micro-op kUopDepth-1's write.)
TEST(ComputeTest, MicroOpIndexPastBufferAfterSteps) {
  ExpectHalts({"uop index after steps",
               {},
               GemmInsn{{}, false, kUopDepth - 2, kUopDepth + 1, 1, 1, 0, 0, 0, 0, 0, 0},
               {kBufUop, kUopDepth}});
}

}  // namespace
}  // namespace tessel::hardware::vdla::testbench
