// vdla_store on its own (output entries of 32 bytes, two beats; a 64-entry output buffer), behind
// a command queue, with the compute->store tokens arriving and the store->compute queue draining
// at random, DRAM granting writes at random and the output buffer answering reads a cycle later.
// Checked every cycle: each STORE writes its y_size x x_size entries row by row, beat by beat, at
// isa.h's strided DRAM addresses with the buffer entry's bytes; STOREs start in order as soon as
// the module is free and their token and room are there, never before; they pop and push tokens
// as their flags say and retire once each with their index; a STORE that would read past the
// buffer raises err with the first index past it and its own index, and does not start; so does
// one that would write past DRAM's end (dram_bytes), naming DRAM and the last entry it would
// write, its buffer range checked first.
#include <gtest/gtest.h>

#include <optional>

#include "hardware/vdla/rtl/testbench/Vvdla_store.h"
#include "hardware/vdla/rtl/testbench/Vvdla_store_params.h"
#include "hardware/vdla/rtl/testbench/bench.h"

namespace tessel::hardware::vdla::testbench {
namespace {

constexpr int kShift = verilated::kOUT_SHIFT;
constexpr int kBeats = verilated::kOUT_BEATS;
constexpr uint32_t kDepth = verilated::kOUT_DEPTH;
static_assert(kBeats * 16 == 1 << kShift);
constexpr int kBufOut = 4, kBufDram = 5;  // err_buffer's numbering (vdla_pkg's BUF_*)

// The output buffer's bytes: a fixed pattern of the entry and the byte, so any read is checkable.
Beat OutBeat(uint32_t entry, int beat) {
  Beat b;
  for (int i = 0; i < 16; ++i) b[i] = static_cast<uint8_t>((entry * 131 + beat * 16 + i) * 7 + 3);
  return b;
}

MemInsn Store(uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride, Deps d = {}) {
  MemInsn m{Opcode::kStore, d, MemType::kOutput, sram, dram, y, x, stride};
  return m;
}

// Whether the STORE reads past the buffer, and the first index it would read there (the entries
// are consecutive from sram_base).
bool Overruns(const MemInsn& m) {
  const uint64_t entries = uint64_t{m.y_size} * m.x_size;
  return entries != 0 && m.sram_base + entries > kDepth;
}
uint32_t FirstPast(const MemInsn& m) { return std::max(m.sram_base, kDepth); }
// The error a STORE at the head raises with a DRAM of `dram_bytes`: (err_buffer, err_index).
std::optional<std::pair<int, uint32_t>> Refusal(const MemInsn& m, uint64_t dram_bytes) {
  if (Overruns(m)) return std::pair{kBufOut, FirstPast(m)};
  const std::optional<DramExtent> e = DramExtentOf(m, uint64_t{1} << kShift);
  if (e && e->Passes(dram_bytes)) return std::pair{kBufDram, static_cast<uint32_t>(e->last)};
  return std::nullopt;
}

struct Write {
  uint32_t addr;
  Beat data;
};

class StoreBench {
 public:
  explicit StoreBench(uint32_t seed) : rng_(seed) {
    s_.q_empty = 1;
    Reset(s_);
  }

  void Push(const MemInsn& m) {
    Pending p;
    p.q = {next_index_++, m, EncodeOrDie(m)};
    p.m = m;
    // isa.h: row y, column x of the tile is buffer entry sram_base + y*x_size + x and DRAM entry
    // dram_base + y*x_stride + x; an entry is 1 << kShift bytes, written a beat at a time.
    for (uint32_t y = 0; y < m.y_size; ++y) {
      for (uint32_t x = 0; x < m.x_size; ++x) {
        for (int b = 0; b < kBeats; ++b) {
          const uint32_t entry = m.sram_base + y * m.x_size + x;
          const uint32_t addr = ((m.dram_base + y * m.x_stride + x) << kShift) + b * 16;
          p.writes.push_back({addr, OutBeat(entry, b)});
        }
      }
    }
    queue_.push_back(std::move(p));
  }

  // Cycles until every queued STORE retired.
  void RunAll(int limit = 1000000) {
    for (int c = 0; c < limit && (!queue_.empty() || running_); ++c) {
      Cycle();
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_TRUE(queue_.empty() && !running_) << "STOREs left after " << limit << " cycles";
  }

  void Cycle();

  TokenQueue c2s{0, 2}, s2c{0, 2};  // the one it pops (pop_prev), the one it pushes (push_prev)
  int token_percent = 30;           // a token arriving / room freeing in a cycle
  int grant_percent = 70;
  uint32_t dram_bytes = uint32_t{1} << 31;  // DRAM's size, as launch gives it
  int retired = 0, err_cycles = 0, writes = 0;
  std::optional<std::pair<int, uint32_t>> err_seen;  // (err_buffer, err_index)

 private:
  struct Pending {
    Queued q;
    MemInsn m;
    std::deque<Write> writes;
  };

  Vvdla_store s_;
  std::mt19937 rng_;
  std::deque<Pending> queue_;
  std::optional<Pending> running_;
  uint32_t next_index_ = 0, rd_entry_ = 0;
  int64_t cycle_ = 0;
};

void StoreBench::Cycle() {
  SCOPED_TRACE(::testing::Message() << "cycle " << cycle_);
  s_.clk = 0;
  s_.eval();
  const bool present = !queue_.empty();
  s_.q_empty = !present;
  if (present) SetHead(s_.q_head, queue_.front().q);
  s_.dram_bytes = dram_bytes;
  s_.have_pop_prev = c2s.have();
  s_.room_push_prev = s2c.room();
  for (int b = 0; b < kBeats; ++b)
    SetBytes(s_.out_rd_data, b * 16, OutBeat(rd_entry_, b).data(), 16);
  s_.req_grant = 0;
  s_.eval();
  const bool grant = s_.req_valid && Chance(rng_, grant_percent);
  s_.req_grant = grant;
  s_.eval();

  // Starting: only a present, in-range STORE whose token and room are there, on a free module;
  // and then always.
  const MemInsn* head = present ? &queue_.front().m : nullptr;
  const std::optional<std::pair<int, uint32_t>> refusal =
      head ? Refusal(*head, dram_bytes) : std::nullopt;
  const bool overrun = refusal.has_value();
  const bool ready =
      head && (!head->deps.pop_prev || c2s.have()) && (!head->deps.push_prev || s2c.room());
  EXPECT_EQ(bool(s_.q_pop), !running_ && ready && !overrun);
  EXPECT_EQ(bool(s_.tok_pop), s_.q_pop && head->deps.pop_prev);
  EXPECT_EQ(bool(s_.busy), running_.has_value());
  // err for an overrun at the head of a free module, whether its tokens are there or not (as
  // fsim reports it).
  if (!running_ && overrun) {
    EXPECT_TRUE(s_.err);
  }
  if (s_.err) {
    ++err_cycles;
    EXPECT_TRUE(!running_ && overrun) << "err with no overrun at the head";
    err_seen = {s_.err_buffer, s_.err_index};
    if (overrun) {
      EXPECT_EQ(s_.err_buffer, refusal->first);
      EXPECT_EQ(s_.err_index, refusal->second);
      EXPECT_EQ(s_.err_insn, queue_.front().q.index);
    }
  }
  // Writing: the running STORE's next beat.
  if (s_.req_valid) {
    EXPECT_TRUE(running_) << "a write with no STORE running";
  }
  if (grant && running_) {
    ++writes;
    if (running_->writes.empty()) {
      ADD_FAILURE() << "an extra write at " << s_.req_addr;
    } else {
      const Write& w = running_->writes.front();
      EXPECT_EQ(s_.req_addr, w.addr) << "instruction " << running_->q.index;
      EXPECT_EQ(GetBeat(s_.req_wdata), w.data)
          << "instruction " << running_->q.index << " addr " << w.addr;
      running_->writes.pop_front();
    }
  }
  // Retiring: once, in order, after its last write; push_prev gives the token then.
  if (s_.retire) {
    EXPECT_TRUE(running_) << "retired with nothing running";
    if (running_) {
      EXPECT_EQ(s_.retire_index, running_->q.index);
      EXPECT_TRUE(running_->writes.empty()) << running_->writes.size() << " writes missing";
      EXPECT_TRUE(!running_->m.deps.push_prev || s2c.room());
    }
  }
  EXPECT_EQ(bool(s_.tok_push), s_.retire && running_ && running_->m.deps.push_prev);
  rd_entry_ = s_.out_rd_entry;
  const bool pop = s_.q_pop, tok_pop = s_.tok_pop, retire = s_.retire, tok_push = s_.tok_push;

  s_.clk = 1;
  s_.eval();
  ++cycle_;
  if (retire) {
    running_.reset();
    ++retired;
  }
  if (pop && present) {
    running_ = std::move(queue_.front());
    queue_.pop_front();
  }
  c2s.count -= tok_pop;
  s2c.count += tok_push;
  if (c2s.room() && Chance(rng_, token_percent)) ++c2s.count;
  if (s2c.have() && Chance(rng_, token_percent)) --s2c.count;
}

TEST(StoreTest, RandomStoresWriteTheirEntries) {
  StoreBench bench(7);
  bench.dram_bytes = 1u << 20;
  std::mt19937 rng(11);
  int expected_writes = 0;
  for (int n = 0; n < 1000; ++n) {
    uint32_t y = Draw(rng, 0, 3), x = Draw(rng, 0, 4);
    // Empty tiles at any base; the rest inside the buffer, some reaching its last entry.
    uint32_t sram = y * x == 0 ? Draw(rng, 0, 65535) : Draw(rng, 0, kDepth - y * x);
    if (y * x != 0 && Chance(rng, 10)) sram = kDepth - y * x;
    const uint32_t stride = Chance(rng, 10) ? Draw(rng, 0, 8) : x + Draw(rng, 0, 3);
    Deps d{Chance(rng, 40), false, Chance(rng, 40), false};
    uint32_t dram = Draw(rng, 0, 5000);
    // Now and then ending at DRAM's last byte (dram_bytes below: 1 MiB, 32768 entries).
    if (y * x != 0 && Chance(rng, 10)) dram = 32767 - ((y - 1) * stride + x - 1);
    bench.Push(Store(sram, dram, y, x, stride, d));
    expected_writes += y * x * kBeats;
  }
  bench.RunAll();
  EXPECT_EQ(bench.retired, 1000);
  EXPECT_EQ(bench.writes, expected_writes);
  EXPECT_EQ(bench.err_cycles, 0);
}

TEST(StoreTest, WaitsForItsTokenAndRoom) {
  StoreBench bench(3);
  bench.token_percent = 0;
  bench.Push(Store(0, 10, 1, 2, 2, {.pop_prev = true}));
  bench.Push(Store(4, 20, 2, 1, 4, {.push_prev = true}));
  bench.s2c.count = bench.s2c.depth;
  for (int c = 0; c < 30; ++c) bench.Cycle();  // no compute->store token: nothing starts
  EXPECT_EQ(bench.writes, 0);
  bench.c2s.count = 1;
  for (int c = 0; c < 100; ++c) bench.Cycle();  // the second waits for room
  EXPECT_EQ(bench.retired, 1);
  EXPECT_EQ(bench.c2s.count, 0);
  --bench.s2c.count;
  bench.RunAll(100);
  EXPECT_EQ(bench.retired, 2);
  EXPECT_EQ(bench.s2c.count, bench.s2c.depth);
  EXPECT_EQ(bench.writes, 4 * kBeats);
}

// A STORE past the buffer's end is refused at the queue's head, with its tokens there; entries up
// to the last are fine.
TEST(StoreTest, OverrunRaisesErrAndDoesNotStart) {
  struct Case {
    uint32_t sram, y, x;
    bool bad;
  };
  for (const Case& c : {Case{60, 2, 3, true}, Case{100, 1, 1, true}, Case{0, 1, kDepth + 1, true},
                        Case{kDepth, 1, 1, true}, Case{kDepth - 1, 1, 1, false},
                        Case{0, 8, kDepth / 8, false}, Case{60000, 0, 5, false}}) {
    SCOPED_TRACE(::testing::Message() << "sram " << c.sram << " y " << c.y << " x " << c.x);
    StoreBench bench(5);
    bench.c2s.count = 2;
    bench.Push(Store(1, 0, 1, 1, 1));
    bench.Push(Store(c.sram, 0, c.y, c.x, c.x, {.pop_prev = true, .push_prev = true}));
    if (c.bad) {
      for (int cycle = 0; cycle < 200; ++cycle) bench.Cycle();
    } else {
      bench.RunAll(1000);
    }
    EXPECT_EQ(bench.retired, c.bad ? 1 : 2);
    EXPECT_EQ(bench.err_cycles > 100, c.bad);
    EXPECT_EQ(bench.writes, kBeats * (1 + (c.bad ? 0 : c.y * c.x)));
  }
}

// A STORE writing past DRAM's end (2048 bytes: 64 entries) is refused at the queue's head, with
// its tokens there, naming its last DRAM entry, and writes nothing; one writing to DRAM's last
// byte runs; a buffer overrun is named before a DRAM one.
TEST(StoreTest, DramOverrunRaisesErrAndDoesNotStart) {
  struct Case {
    uint32_t sram, dram, y, x, stride;
    std::optional<std::pair<int, uint32_t>> err;
  };
  for (const Case& c : {
           Case{0, 63, 1, 1, 1, std::nullopt},
           Case{0, 63, 1, 2, 2, {{kBufDram, 64}}},
           Case{0, 0, 2, 4, 60, std::nullopt},  // entries to 63
           Case{0, 0, 2, 4, 61, {{kBufDram, 64}}},
           Case{0, 0, 3, 2, 0, std::nullopt},     // rows over one another
           Case{0, 9000, 0, 2, 2, std::nullopt},  // an empty tile writes nothing
           // 2^27 entries end at 2^32 bytes: 0 in 32 bits.
           Case{0, (1u << 27) - 1, 1, 1, 1, {{kBufDram, (1u << 27) - 1}}},
           // The last entry past 32 bits: its low 32 bits.
           Case{0, 0xfffffff0u, 2, 1, 0x20, {{kBufDram, 0x10}}},
           Case{kDepth - 1, 100, 1, 2, 2, {{kBufOut, kDepth}}},
       }) {
    SCOPED_TRACE(::testing::Message()
                 << "dram " << c.dram << " y " << c.y << " x " << c.x << " stride " << c.stride);
    StoreBench bench(13);
    bench.dram_bytes = 2048;
    bench.c2s.count = 2;
    bench.Push(Store(1, 0, 1, 1, 1));
    bench.Push(Store(c.sram, c.dram, c.y, c.x, c.stride, {.pop_prev = true, .push_prev = true}));
    if (c.err) {
      for (int cycle = 0; cycle < 200; ++cycle) bench.Cycle();
    } else {
      bench.RunAll(1000);
    }
    EXPECT_EQ(bench.retired, c.err ? 1 : 2);
    EXPECT_EQ(bench.err_cycles > 100, c.err.has_value());
    EXPECT_EQ(bench.err_seen, c.err);
    EXPECT_EQ(bench.writes, kBeats * (1 + (c.err ? 0 : c.y * c.x)));
  }
}

}  // namespace
}  // namespace tessel::hardware::vdla::testbench
