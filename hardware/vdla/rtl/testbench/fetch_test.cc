// vdla_fetch on its own (16 reads in flight), reading programs from a DRAM that grants at random
// and answers in order after random latencies of up to 40 cycles, into three command queues of
// random depths that drain at random. Checked every cycle: the program's 16-byte instructions are
// requested once each, in order, from its base, with no more than 16 read but not yet dispatched
// (the buffer they land in) and whenever that allows; each instruction goes, in program order and
// with its index, to the queue of the module isa.h's Route names, as soon as it has arrived and
// that queue is not full, never into a full one; at an instruction Decode or Route refuses, fetch
// raises err with its index and dispatches nothing more; `fetching` and `working` say what the
// module says they do.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "hardware/vdla/rtl/testbench/Vvdla_fetch.h"
#include "hardware/vdla/rtl/testbench/Vvdla_fetch_params.h"
#include "hardware/vdla/rtl/testbench/bench.h"

namespace tessel::hardware::vdla::testbench {
namespace {

constexpr uint32_t kDepth = verilated::kDEPTH;

// The queue an instruction goes to (0 load, 1 compute, 2 store), or nullopt when no module runs it.
std::optional<int> Target(const EncodedInsn& bits) {
  absl::StatusOr<Insn> insn = Decode(bits);
  if (!insn.ok()) return std::nullopt;
  absl::StatusOr<Module> module = Route(*insn);
  if (!module.ok()) return std::nullopt;
  return static_cast<int>(*module);
}

// Sets bits [lo, lo + width) of an encoding: the fields Encode cannot write wrongly.
EncodedInsn WithField(EncodedInsn e, int lo, int width, uint64_t value) {
  for (int b = 0; b < width; ++b) {
    const int bit = lo + b;
    e.words[bit / 64] &= ~(uint64_t{1} << (bit % 64));
    e.words[bit / 64] |= ((value >> b) & 1) << (bit % 64);
  }
  return e;
}

// A random instruction some module runs, its fields anywhere in their widths.
EncodedInsn RandomInsn(std::mt19937& rng) {
  auto deps = [&] {
    return Deps{Chance(rng, 50), Chance(rng, 50), Chance(rng, 50), Chance(rng, 50)};
  };
  while (true) {
    Insn insn;
    switch (Draw(rng, 0, 4)) {
      case 0:
      case 1: {
        MemInsn m{Draw(rng, 0, 1) ? Opcode::kStore : Opcode::kLoad,
                  deps(),
                  static_cast<MemType>(Draw(rng, 0, 4)),
                  Draw(rng, 0, 65535),
                  static_cast<uint32_t>(rng()),
                  Draw(rng, 0, 65535),
                  Draw(rng, 0, 65535),
                  Draw(rng, 0, 65535)};
        if (Chance(rng, 30)) m.y_pad_0 = Draw(rng, 0, 15), m.x_pad_1 = Draw(rng, 0, 15);
        insn = m;
        break;
      }
      case 2:
        insn = GemmInsn{deps(),
                        Chance(rng, 50),
                        Draw(rng, 0, 16383),
                        Draw(rng, 0, 32767),
                        Draw(rng, 0, 8191),
                        Draw(rng, 0, 8191),
                        Draw(rng, 0, 2047),
                        Draw(rng, 0, 2047),
                        Draw(rng, 0, 2047),
                        Draw(rng, 0, 2047),
                        Draw(rng, 0, 1023),
                        Draw(rng, 0, 1023)};
        break;
      case 3:
        insn = AluInsn{deps(),
                       static_cast<AluOp>(Draw(rng, 0, 4)),
                       Chance(rng, 50),
                       static_cast<int32_t>(Draw(rng, 0, 65535)) - 32768,
                       Draw(rng, 0, 16383),
                       Draw(rng, 0, 32767),
                       Draw(rng, 0, 8191),
                       Draw(rng, 0, 8191),
                       Draw(rng, 0, 2047),
                       Draw(rng, 0, 2047),
                       Draw(rng, 0, 2047),
                       Draw(rng, 0, 2047)};
        break;
      default:
        insn = FinishInsn{deps()};
    }
    const EncodedInsn bits = EncodeOrDie(insn);
    if (Target(bits)) return bits;
  }
}

class FetchBench {
 public:
  explicit FetchBench(uint32_t seed) : rng_(seed) {
    f_.launch = 0;
    Reset(f_);
  }

  // Starts `program` at byte address `base`: the launch cycle, then the run's first cycle.
  void Launch(std::vector<EncodedInsn> program, uint32_t base) {
    ASSERT_TRUE(dram_.empty());
    program_ = std::move(program);
    base_ = base;
    f_.launch = 1;
    f_.insn_addr = base;
    f_.insn_count = program_.size();
    launched_ = false;  // the launch cycle: the last run's end, quiet
    Cycle();
    f_.launch = 0;
    launched_ = true;
    requested_ = received_ = dispatched_ = 0;
    for (auto& q : pushed) q.clear();
  }

  // Cycles until the program is dispatched, or `limit` cycles.
  void Run(int limit) {
    for (int c = 0; c < limit && dispatched_ < program_.size(); ++c) {
      Cycle();
      if (::testing::Test::HasFailure()) return;
    }
  }

  void Cycle();

  size_t dispatched() const { return dispatched_; }

  int depth[3] = {2, 2, 2}, count[3] = {0, 0, 0};  // the command queues' room
  int drain_percent = 50;
  int grant_percent = 70;
  int max_latency = 40;
  uint32_t most_ahead = 0;          // most instructions requested and not yet dispatched
  std::vector<uint32_t> pushed[3];  // indices each queue got, in order
  int err_cycles = 0;

 private:
  Vvdla_fetch f_;
  std::mt19937 rng_;
  ReadPort dram_;
  std::vector<EncodedInsn> program_;
  uint32_t base_ = 0;
  bool launched_ = false;
  size_t requested_ = 0, received_ = 0, dispatched_ = 0;
  int64_t cycle_ = 0;
};

void FetchBench::Cycle() {
  SCOPED_TRACE(::testing::Message() << "cycle " << cycle_);
  f_.clk = 0;
  f_.eval();
  f_.q_full = 0;
  for (int q = 0; q < 3; ++q) f_.q_full |= (count[q] >= depth[q]) << q;
  const bool respond = dram_.Due(cycle_);
  f_.resp_valid = respond;
  if (respond) SetBytes(f_.resp_data, 0, dram_.Front().data(), 16);
  f_.req_grant = 0;
  f_.eval();
  const bool grant = f_.req_valid && !f_.launch && Chance(rng_, grant_percent);
  f_.req_grant = grant;
  f_.eval();

  if (launched_) {
    const size_t n = program_.size();
    // Reading ahead: in order, as far as the buffer allows, and always that far.
    const bool may_request = requested_ < n && requested_ - dispatched_ < kDepth;
    EXPECT_EQ(bool(f_.req_valid), may_request);
    if (f_.req_valid) {
      EXPECT_EQ(f_.req_addr, base_ + 16 * requested_);
    }
    // Dispatching: the next instruction once it has arrived, into its module's queue with room.
    std::optional<int> target;
    const bool arrived = received_ > dispatched_;
    if (arrived) target = Target(program_[dispatched_]);
    const int want = arrived && target && count[*target] < depth[*target] ? 1 << *target : 0;
    EXPECT_EQ(int{f_.q_push}, want);
    if (f_.q_push) {
      Queued q;
      GetBytes(f_.q_data, 0, q.bits.words.data(), 16);
      GetBytes(f_.q_data, 16, &q.index, 4);
      EXPECT_EQ(q.index, dispatched_);
      EXPECT_TRUE(q.bits == program_[dispatched_]) << "instruction " << dispatched_;
    }
    EXPECT_EQ(bool(f_.err), arrived && !target);
    if (f_.err) {
      ++err_cycles;
      EXPECT_EQ(f_.err_insn, dispatched_);
    }
    EXPECT_EQ(bool(f_.fetching), dispatched_ < n);
    EXPECT_EQ(bool(f_.working), f_.req_valid || requested_ != received_ || want != 0);
  } else {
    EXPECT_FALSE(f_.req_valid || f_.q_push || f_.fetching || f_.working);
  }
  const int push = f_.q_push;
  const uint32_t addr = f_.req_addr;

  f_.clk = 1;
  f_.eval();
  ++cycle_;
  if (!launched_) return;
  if (grant) {
    const uint64_t k = (addr - base_) / 16;
    Beat data{};
    if (k < program_.size()) std::memcpy(data.data(), program_[k].words.data(), 16);
    dram_.Request(cycle_, Draw(rng_, 1, max_latency), data);
    ++requested_;
    most_ahead = std::max<uint32_t>(most_ahead, requested_ - dispatched_);
  }
  if (respond) {
    dram_.Pop();
    ++received_;
  }
  for (int q = 0; q < 3; ++q) {
    if (push == 1 << q) {
      pushed[q].push_back(dispatched_++);
      ++count[q];
    }
    if (count[q] > 0 && Chance(rng_, drain_percent)) --count[q];
  }
}

TEST(FetchTest, RandomProgramsGoToTheirQueuesInOrder) {
  FetchBench bench(31);
  std::mt19937 rng(37);
  for (int run = 0; run < 10; ++run) {
    SCOPED_TRACE(::testing::Message() << "run " << run);
    std::vector<EncodedInsn> program(Draw(rng, 1, 400));
    for (EncodedInsn& e : program) e = RandomInsn(rng);
    for (int q = 0; q < 3; ++q) bench.depth[q] = Draw(rng, 1, 4);
    bench.drain_percent = Draw(rng, 10, 90);
    bench.Launch(program, 16 * Draw(rng, 0, 1 << 20));
    bench.Run(100000);
    ASSERT_EQ(bench.dispatched(), program.size());
    for (int q = 0; q < 3; ++q) {
      std::vector<uint32_t> want;
      for (uint32_t i = 0; i < program.size(); ++i) {
        if (Target(program[i]) == q) want.push_back(i);
      }
      EXPECT_EQ(bench.pushed[q], want) << "queue " << q;
    }
    for (int c = 0; c < 50; ++c) bench.Cycle();  // done: quiet
  }
  EXPECT_EQ(bench.most_ahead, kDepth);  // the latencies let it read as far ahead as it may
  EXPECT_EQ(bench.err_cycles, 0);
}

TEST(FetchTest, EmptyProgramReadsNothing) {
  FetchBench bench(41);
  bench.Launch({}, 4096);
  for (int c = 0; c < 20; ++c) bench.Cycle();
  EXPECT_EQ(bench.dispatched(), 0u);
}

// Each kind of instruction no module runs: fetch dispatches what precedes it and stops there.
TEST(FetchTest, MalformedInstructionStopsFetch) {
  constexpr int kOpcodeLo = 0, kMemTypeLo = 7, kAluOpLo = 106;
  auto mem = [](Opcode op, MemType type, Deps d = {}, uint32_t pad = 0) {
    MemInsn m{op, d, type, 3, 100, 1, 2, 2};
    m.y_pad_0 = pad;
    return EncodeOrDie(m);
  };
  const EncodedInsn load_inp = mem(Opcode::kLoad, MemType::kInput);
  const EncodedInsn alu = EncodeOrDie(AluInsn{{}, AluOp::kAdd});
  std::vector<EncodedInsn> bad;
  for (uint64_t op : {5, 6, 7}) bad.push_back(WithField(load_inp, kOpcodeLo, 3, op));
  for (uint64_t t : {5, 6, 7}) bad.push_back(WithField(load_inp, kMemTypeLo, 3, t));
  for (uint64_t op : {5, 6, 7}) bad.push_back(WithField(alu, kAluOpLo, 3, op));
  bad.push_back(mem(Opcode::kLoad, MemType::kOutput));
  bad.push_back(mem(Opcode::kStore, MemType::kInput));
  bad.push_back(mem(Opcode::kStore, MemType::kAccumulator));
  bad.push_back(mem(Opcode::kStore, MemType::kOutput, {}, 1));
  bad.push_back(mem(Opcode::kStore, MemType::kOutput, {.pop_next = true}));
  bad.push_back(mem(Opcode::kStore, MemType::kOutput, {.push_next = true}));
  bad.push_back(mem(Opcode::kLoad, MemType::kUop, {}, 1));
  bad.push_back(mem(Opcode::kLoad, MemType::kWeight, {}, 2));
  bad.push_back(mem(Opcode::kLoad, MemType::kInput, {.pop_prev = true}));
  bad.push_back(mem(Opcode::kLoad, MemType::kWeight, {.push_prev = true}));
  std::mt19937 rng(43);
  for (size_t b = 0; b < bad.size(); ++b) {
    SCOPED_TRACE(::testing::Message() << "malformed case " << b);
    ASSERT_FALSE(Target(bad[b]));
    std::vector<EncodedInsn> program;
    const size_t at = Draw(rng, 0, 20);
    for (size_t i = 0; i < at; ++i) program.push_back(RandomInsn(rng));
    program.push_back(bad[b]);
    for (int i = 0; i < 10; ++i) program.push_back(RandomInsn(rng));
    FetchBench bench(47 + b);
    bench.depth[0] = bench.depth[1] = bench.depth[2] = 4;
    bench.Launch(program, 0x10000);
    for (int c = 0; c < 400; ++c) bench.Cycle();
    EXPECT_EQ(bench.dispatched(), at);
    EXPECT_GT(bench.err_cycles, 300);
  }
}

}  // namespace
}  // namespace tessel::hardware::vdla::testbench
