// vdla_load on its own (the paper's entries: inputs 16 bytes, weights 256; buffers of 64 inputs
// and 32 weights so overruns are near), behind a command queue, with compute->load tokens arriving
// and the load->compute queue draining at random, DRAM granting reads at random and answering in
// order after random latencies. Checked every cycle: each LOAD writes exactly its padded tile into
// the buffer of its memory type (zeros around, DRAM's bytes at isa.h's strided addresses inside),
// each beat once, between its start and its retirement; LOADs start in order as soon as the
// module is free and their token and room are there, never before; they pop and push tokens as
// their flags say and retire once each with their index after their last write; a LOAD that would
// write past its buffer raises err naming the buffer, the first index past it and the instruction,
// and does not start; so does one that would read past DRAM's end (dram_bytes), naming DRAM and
// the last entry it would read, its buffer range checked first.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "hardware/vdla/rtl/testbench/Vvdla_load.h"
#include "hardware/vdla/rtl/testbench/Vvdla_load_params.h"
#include "hardware/vdla/rtl/testbench/bench.h"

namespace tessel::hardware::vdla::testbench {
namespace {

namespace v = verilated;
// err_buffer's numbering (vdla_pkg's BUF_*).
constexpr int kBufInput = 0, kBufWeight = 1, kBufDram = 5;

// DRAM's byte at an address: a fixed pattern, so any read is checkable.
uint8_t DramByte(uint64_t addr) { return static_cast<uint8_t>((addr * 2246822519u) >> 11); }
Beat DramBeat(uint64_t addr) {
  Beat b;
  for (int i = 0; i < 16; ++i) b[i] = DramByte(addr + i);
  return b;
}

bool IsWeight(const MemInsn& m) { return m.type == MemType::kWeight; }
uint32_t Depth(const MemInsn& m) { return IsWeight(m) ? v::kWGT_DEPTH : v::kINP_DEPTH; }
uint32_t Rows(const MemInsn& m) { return m.y_pad_0 + m.y_size + m.y_pad_1; }
uint32_t Cols(const MemInsn& m) { return m.x_pad_0 + m.x_size + m.x_pad_1; }
int Shift(const MemInsn& m) { return IsWeight(m) ? v::kWGT_SHIFT : v::kINP_SHIFT; }
bool BufferOverruns(const MemInsn& m) {
  const uint64_t entries = uint64_t{Rows(m)} * Cols(m);
  return entries != 0 && m.sram_base + entries > Depth(m);
}
// The error a LOAD at the head raises with a DRAM of `dram_bytes`: (err_buffer, err_index).
std::optional<std::pair<int, uint32_t>> Refusal(const MemInsn& m, uint64_t dram_bytes) {
  if (BufferOverruns(m)) {
    return std::pair{IsWeight(m) ? kBufWeight : kBufInput, std::max(m.sram_base, Depth(m))};
  }
  const std::optional<DramExtent> e = DramExtentOf(m, uint64_t{1} << Shift(m));
  if (e && e->Passes(dram_bytes)) return std::pair{kBufDram, static_cast<uint32_t>(e->last)};
  return std::nullopt;
}

MemInsn Load(MemType type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride,
             Deps d = {}) {
  return MemInsn{Opcode::kLoad, d, type, sram, dram, y, x, stride};
}

class LoadBench {
 public:
  explicit LoadBench(uint32_t seed) : rng_(seed) {
    l_.q_empty = 1;
    Reset(l_);
  }

  void Push(const MemInsn& m) {
    Pending p;
    p.q = {next_index_++, m, EncodeOrDie(m)};
    p.m = m;
    // isa.h: the tile's row r, column c is buffer entry sram_base + r*cols + c; inside the padding
    // it is DRAM entry dram_base + (r - y_pad_0)*x_stride + (c - x_pad_0).
    const int shift = Shift(m);
    const int beats = IsWeight(m) ? v::kWGT_BEATS : v::kINP_BEATS;
    for (uint32_t r = 0; r < Rows(m); ++r) {
      for (uint32_t c = 0; c < Cols(m); ++c) {
        const bool pad = r < m.y_pad_0 || r >= m.y_pad_0 + m.y_size || c < m.x_pad_0 ||
                         c >= m.x_pad_0 + m.x_size;
        const uint64_t e = m.dram_base + uint64_t{r - m.y_pad_0} * m.x_stride + (c - m.x_pad_0);
        for (int b = 0; b < beats; ++b) {
          p.writes[{m.sram_base + r * Cols(m) + c, b}] =
              pad ? Beat{} : DramBeat((e << shift) + 16 * b);
        }
      }
    }
    queue_.push_back(std::move(p));
  }

  void RunAll(int limit = 1000000) {
    for (int c = 0; c < limit && (!queue_.empty() || running_); ++c) {
      Cycle();
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_TRUE(queue_.empty() && !running_) << "LOADs left after " << limit << " cycles";
  }

  void Cycle();

  TokenQueue c2l{0, 2}, l2c{0, 2};  // the one it pops (pop_next), the one it pushes (push_next)
  int token_percent = 30;
  int grant_percent = 70;
  int max_latency = 8;
  uint32_t dram_bytes = uint32_t{1} << 31;  // DRAM's size, as launch gives it
  int retired = 0, err_cycles = 0, writes = 0;
  std::optional<std::pair<int, uint32_t>> err_seen;  // (err_buffer, err_index)

 private:
  struct Pending {
    Queued q;
    MemInsn m;
    std::map<std::pair<uint32_t, int>, Beat> writes;  // (entry, beat): data, until written
  };

  Vvdla_load l_;
  std::mt19937 rng_;
  std::deque<Pending> queue_;
  std::optional<Pending> running_;
  ReadPort dram_;
  uint32_t next_index_ = 0;
  int64_t cycle_ = 0;
};

void LoadBench::Cycle() {
  SCOPED_TRACE(::testing::Message() << "cycle " << cycle_);
  l_.clk = 0;
  l_.eval();
  const bool present = !queue_.empty();
  l_.q_empty = !present;
  if (present) SetHead(l_.q_head, queue_.front().q);
  l_.dram_bytes = dram_bytes;
  l_.have_pop_next = c2l.have();
  l_.room_push_next = l2c.room();
  const bool respond = dram_.Due(cycle_);
  l_.resp_valid = respond;
  if (respond) SetBytes(l_.resp_data, 0, dram_.Front().data(), 16);
  l_.req_grant = 0;
  l_.eval();
  const bool grant = l_.req_valid && Chance(rng_, grant_percent);
  l_.req_grant = grant;
  l_.eval();

  const MemInsn* head = present ? &queue_.front().m : nullptr;
  const std::optional<std::pair<int, uint32_t>> refusal =
      head ? Refusal(*head, dram_bytes) : std::nullopt;
  const bool overrun = refusal.has_value();
  const bool ready =
      head && (!head->deps.pop_next || c2l.have()) && (!head->deps.push_next || l2c.room());
  EXPECT_EQ(bool(l_.q_pop), !running_ && ready && !overrun);
  EXPECT_EQ(bool(l_.tok_pop), l_.q_pop && head->deps.pop_next);
  EXPECT_EQ(bool(l_.busy), running_.has_value());
  // err for an overrun at the head of a free module, whether its tokens are there or not (as
  // fsim reports it).
  if (!running_ && overrun) {
    EXPECT_TRUE(l_.err);
  }
  if (l_.err) {
    ++err_cycles;
    err_seen = {l_.err_buffer, l_.err_index};
    EXPECT_TRUE(!running_ && overrun) << "err with no overrun at the head";
    if (overrun) {
      EXPECT_EQ(l_.err_buffer, refusal->first);
      EXPECT_EQ(l_.err_index, refusal->second);
      EXPECT_EQ(l_.err_insn, queue_.front().q.index);
    }
  }
  if (l_.req_valid) {
    EXPECT_TRUE(running_) << "a read with no LOAD running";
  }
  if (grant) dram_.Request(cycle_, Draw(rng_, 1, max_latency), DramBeat(l_.req_addr));
  EXPECT_FALSE(l_.inp_wr_en && l_.wgt_wr_en);
  if (l_.inp_wr_en || l_.wgt_wr_en) {
    ++writes;
    if (!running_) {
      ADD_FAILURE() << "a write with no LOAD running";
    } else {
      const uint32_t index = running_->q.index;
      EXPECT_EQ(bool(l_.wgt_wr_en), IsWeight(running_->m)) << "instruction " << index;
      auto it = running_->writes.find({l_.wr_entry, l_.wr_beat});
      if (it == running_->writes.end()) {
        ADD_FAILURE() << "instruction " << index << ": entry " << l_.wr_entry << " beat "
                      << int{l_.wr_beat} << " not in its tile or written twice";
      } else {
        EXPECT_EQ(GetBeat(l_.wr_data), it->second)
            << "instruction " << index << ": entry " << l_.wr_entry << " beat " << int{l_.wr_beat};
        running_->writes.erase(it);
      }
    }
  }
  if (l_.retire) {
    EXPECT_TRUE(running_) << "retired with nothing running";
    if (running_) {
      EXPECT_EQ(l_.retire_index, running_->q.index);
      EXPECT_TRUE(running_->writes.empty()) << running_->writes.size() << " beats not written";
      EXPECT_TRUE(!respond && dram_.empty()) << "retired with reads in flight";
      EXPECT_TRUE(!running_->m.deps.push_next || l2c.room());
    }
  }
  EXPECT_EQ(bool(l_.tok_push), l_.retire && running_ && running_->m.deps.push_next);
  const bool pop = l_.q_pop, tok_pop = l_.tok_pop, retire = l_.retire, tok_push = l_.tok_push;

  l_.clk = 1;
  l_.eval();
  ++cycle_;
  if (respond) dram_.Pop();
  if (retire) {
    running_.reset();
    ++retired;
  }
  if (pop && present) {
    running_ = std::move(queue_.front());
    queue_.pop_front();
  }
  c2l.count -= tok_pop;
  l2c.count += tok_push;
  if (c2l.room() && Chance(rng_, token_percent)) ++c2l.count;
  if (l2c.have() && Chance(rng_, token_percent)) --l2c.count;
}

TEST(LoadTest, RandomLoadsWriteTheirTiles) {
  LoadBench bench(17);
  bench.dram_bytes = 1u << 20;
  std::mt19937 rng(19);
  for (int n = 0; n < 600; ++n) {
    const bool weight = Chance(rng, 40);
    MemInsn m = Load(weight ? MemType::kWeight : MemType::kInput, 0, Draw(rng, 0, 3000),
                     Draw(rng, 0, weight ? 2 : 3), Draw(rng, 0, weight ? 3 : 4), 0,
                     {false, Chance(rng, 40), false, Chance(rng, 40)});
    m.x_stride = Chance(rng, 10) ? Draw(rng, 0, 6) : m.x_size + Draw(rng, 0, 3);
    if (!weight && Chance(rng, 50)) {
      m.y_pad_0 = Draw(rng, 0, 2), m.y_pad_1 = Draw(rng, 0, 2);
      m.x_pad_0 = Draw(rng, 0, 2), m.x_pad_1 = Draw(rng, 0, 2);
    }
    const uint32_t entries = Rows(m) * Cols(m);
    m.sram_base = entries == 0 ? Draw(rng, 0, 65535) : Draw(rng, 0, Depth(m) - entries);
    // DRAM ends at the extent's last byte now and then (dram_bytes below is 1 MiB).
    const std::optional<DramExtent> extent = DramExtentOf(m, uint64_t{1} << Shift(m));
    if (extent && Chance(rng, 10)) {
      m.dram_base = static_cast<uint32_t>((uint64_t{1} << (20 - Shift(m))) - 1 -
                                          (extent->last - m.dram_base));
    }
    if (entries != 0 && Chance(rng, 10)) m.sram_base = Depth(m) - entries;
    bench.Push(m);
  }
  bench.RunAll();
  EXPECT_EQ(bench.retired, 600);
  EXPECT_EQ(bench.err_cycles, 0);
}

TEST(LoadTest, WaitsForItsTokenAndRoom) {
  LoadBench bench(23);
  bench.token_percent = 0;
  bench.Push(Load(MemType::kInput, 0, 5, 1, 3, 3, {.pop_next = true}));
  bench.Push(Load(MemType::kWeight, 2, 9, 1, 1, 1, {.push_next = true}));
  bench.l2c.count = bench.l2c.depth;
  for (int c = 0; c < 30; ++c) bench.Cycle();  // no compute->load token: nothing starts
  EXPECT_EQ(bench.writes, 0);
  bench.c2l.count = 1;
  for (int c = 0; c < 100; ++c) bench.Cycle();  // the second waits for room
  EXPECT_EQ(bench.retired, 1);
  EXPECT_EQ(bench.writes, 3);
  EXPECT_EQ(bench.c2l.count, 0);
  --bench.l2c.count;
  bench.RunAll(200);
  EXPECT_EQ(bench.retired, 2);
  EXPECT_EQ(bench.l2c.count, bench.l2c.depth);
  EXPECT_EQ(bench.writes, 3 + v::kWGT_BEATS);
}

// A LOAD whose tile (padding included) passes its buffer's end is refused at the queue's head,
// with its tokens there; tiles up to the last entry are fine.
TEST(LoadTest, OverrunRaisesErrAndDoesNotStart) {
  struct Case {
    MemType type;
    uint32_t sram, y, x, pad;
    bool bad;
  };
  const uint32_t inp = v::kINP_DEPTH, wgt = v::kWGT_DEPTH;
  for (const Case& c :
       {Case{MemType::kInput, 60, 1, 2, 1, true}, Case{MemType::kInput, inp - 2, 1, 2, 0, false},
        Case{MemType::kInput, inp - 12, 1, 2, 1, false},
        Case{MemType::kInput, inp - 5, 0, 1, 1, true},  // padding only
        Case{MemType::kInput, 500, 2, 2, 0, true}, Case{MemType::kWeight, wgt, 1, 1, 0, true},
        Case{MemType::kWeight, wgt - 1, 1, 2, 0, true},
        Case{MemType::kWeight, wgt - 1, 1, 1, 0, false},
        Case{MemType::kWeight, 60000, 3, 0, 0, false}}) {
    SCOPED_TRACE(::testing::Message()
                 << (c.type == MemType::kWeight ? "wgt" : "inp") << " sram " << c.sram << " y "
                 << c.y << " x " << c.x << " pad " << c.pad);
    LoadBench bench(29);
    bench.c2l.count = 2;
    bench.Push(Load(MemType::kInput, 1, 7, 1, 1, 1));
    MemInsn m = Load(c.type, c.sram, 40, c.y, c.x, c.x, {.pop_next = true, .push_next = true});
    m.y_pad_0 = m.y_pad_1 = m.x_pad_0 = m.x_pad_1 = c.pad;
    bench.Push(m);
    if (c.bad) {
      for (int cycle = 0; cycle < 300; ++cycle) bench.Cycle();
    } else {
      bench.RunAll(3000);
    }
    EXPECT_EQ(bench.retired, c.bad ? 1 : 2);
    EXPECT_EQ(bench.err_cycles > 200, c.bad);
  }
}

// A LOAD reading past DRAM's end (4096 bytes: 256 input entries, 16 weight entries) is refused
// at the queue's head, with its tokens there, naming its last DRAM entry, and reads nothing; one
// reading to DRAM's last byte runs; a buffer overrun is named before a DRAM one.
TEST(LoadTest, DramOverrunRaisesErrAndDoesNotStart) {
  struct Case {
    MemType type;
    uint32_t sram, dram, y, x, stride, pad;
    std::optional<std::pair<int, uint32_t>> err;
  };
  const uint32_t inp = v::kINP_DEPTH;
  for (const Case& c : {
           Case{MemType::kInput, 0, 255, 1, 1, 1, 0, std::nullopt},
           Case{MemType::kInput, 0, 255, 1, 2, 2, 0, {{kBufDram, 256}}},
           Case{MemType::kInput, 0, 200, 2, 4, 52, 0, std::nullopt},  // entries to 255
           Case{MemType::kInput, 0, 200, 2, 4, 53, 0, {{kBufDram, 256}}},
           Case{MemType::kInput, 0, 255, 1, 1, 1, 2, std::nullopt},   // padding reads nothing
           Case{MemType::kInput, 0, 9000, 0, 3, 3, 1, std::nullopt},  // nor does an empty tile
           Case{MemType::kWeight, 0, 15, 1, 1, 1, 0, std::nullopt},
           Case{MemType::kWeight, 0, 14, 2, 1, 1, 0, std::nullopt},
           Case{MemType::kWeight, 0, 15, 1, 2, 2, 0, {{kBufDram, 16}}},
           Case{MemType::kWeight, 0, 0, 2, 1, 16, 0, {{kBufDram, 16}}},
           // 2^24 weight entries end at 2^32 bytes: 0 in 32 bits.
           Case{MemType::kWeight, 0, (1u << 24) - 1, 1, 1, 1, 0, {{kBufDram, (1u << 24) - 1}}},
           // The last entry past 32 bits: its low 32 bits.
           Case{MemType::kInput, 0, 0xffffffffu, 2, 1, 2, 0, {{kBufDram, 1}}},
           Case{MemType::kInput, inp - 1, 300, 1, 2, 2, 0, {{kBufInput, inp}}},
       }) {
    SCOPED_TRACE(::testing::Message()
                 << (c.type == MemType::kWeight ? "wgt" : "inp") << " dram " << c.dram << " y "
                 << c.y << " x " << c.x << " stride " << c.stride << " pad " << c.pad);
    LoadBench bench(31);
    bench.dram_bytes = 4096;
    bench.c2l.count = 2;
    bench.Push(Load(MemType::kInput, 1, 7, 1, 1, 1));
    MemInsn m = Load(c.type, c.sram, c.dram, c.y, c.x, c.stride, {.pop_next = true});
    if (c.type == MemType::kInput) m.y_pad_0 = m.y_pad_1 = m.x_pad_0 = m.x_pad_1 = c.pad;
    bench.Push(m);
    if (c.err) {
      for (int cycle = 0; cycle < 300; ++cycle) bench.Cycle();
    } else {
      bench.RunAll(3000);
    }
    EXPECT_EQ(bench.retired, c.err ? 1 : 2);
    EXPECT_EQ(bench.err_cycles > 200, c.err.has_value());
    EXPECT_EQ(bench.err_seen, c.err);
    if (c.err) {
      EXPECT_EQ(bench.writes, 1) << "the refused LOAD wrote";
    }
  }
}

}  // namespace
}  // namespace tessel::hardware::vdla::testbench
