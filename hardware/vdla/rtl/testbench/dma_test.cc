// vdla_dma on its own: random 2-D tiles (entries of 4 to 256 bytes, empty and padded tiles,
// strides), the memory granting requests at random and answering after random in-order latencies;
// the buffer writes must be exactly the padded tile: zeros around, DRAM's bytes inside, each beat
// written once, then `done` for one cycle.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <utility>

#include "hardware/vdla/isa.h"
#include "hardware/vdla/rtl/testbench/Vvdla_dma.h"

namespace {

using Beat = std::array<uint8_t, 16>;

// DRAM's byte at an address: a fixed pattern, so any read can be checked.
uint8_t DramByte(uint64_t addr) { return static_cast<uint8_t>((addr * 2654435761u) >> 13); }

Beat DramBeat(uint64_t addr) {
  Beat b;
  for (int i = 0; i < 16; ++i) b[i] = DramByte(addr + i);
  return b;
}

struct Tile {
  uint32_t sram_base, dram_base, y, x, stride, y0, y1, x0, x1, shift, beats;
};

TEST(DmaTest, WritesExactlyThePaddedTile) {
  VerilatedContext context;
  Vvdla_dma dma(&context);
  std::mt19937 rng(5);
  auto draw = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  std::deque<std::pair<int64_t, Beat>> responses;
  int64_t cycle = 0;
  std::map<std::pair<int, int>, Beat> written;
  int writes = 0;
  // One cycle: random grant, the due response, then the edge; records what the edge wrote.
  auto tick = [&] {
    dma.clk = 0;
    dma.eval();
    const bool grant = dma.req_valid && draw(0, 9) < 7;
    dma.req_grant = grant;
    const bool respond = !responses.empty() && responses.front().first <= cycle;
    dma.resp_valid = respond;
    if (respond) std::memcpy(dma.resp_data.data(), responses.front().second.data(), 16);
    dma.eval();
    if (dma.wr_en) {
      Beat data;
      std::memcpy(data.data(), dma.wr_data.data(), 16);
      written[{dma.wr_entry, dma.wr_beat}] = data;
      ++writes;
    }
    if (grant) responses.emplace_back(cycle + draw(1, 8), DramBeat(dma.req_addr));
    dma.clk = 1;
    dma.eval();
    if (respond) responses.pop_front();
    ++cycle;
  };
  dma.rst = 1;
  dma.start = 0;
  tick();
  dma.rst = 0;

  for (int c = 0; c < 300; ++c) {
    const uint32_t shift = std::array<uint32_t, 4>{2, 4, 6, 8}[draw(0, 3)];
    Tile t{draw(0, 50),
           draw(0, 200),
           draw(0, 3),
           draw(0, 4),
           0,
           0,
           0,
           0,
           0,
           shift,
           std::max(1u, (1u << shift) / 16)};
    t.stride = t.x + draw(0, 3);
    if (draw(0, 1)) t.y0 = draw(0, 2), t.y1 = draw(0, 2), t.x0 = draw(0, 2), t.x1 = draw(0, 2);
    SCOPED_TRACE(::testing::Message() << "case " << c << ": " << t.y << "x" << t.x << " pads "
                                      << t.y0 << t.y1 << t.x0 << t.x1 << " shift " << t.shift);
    written.clear();
    writes = 0;
    dma.start = 1;
    // The LOAD as the hardware reads it (the memory type plays no part in the DMA).
    const tessel::hardware::vdla::MemInsn load{tessel::hardware::vdla::Opcode::kLoad,
                                               {},
                                               tessel::hardware::vdla::MemType::kInput,
                                               t.sram_base,
                                               t.dram_base,
                                               t.y,
                                               t.x,
                                               t.stride,
                                               t.y0,
                                               t.y1,
                                               t.x0,
                                               t.x1};
    const absl::StatusOr<tessel::hardware::vdla::EncodedInsn> bits =
        tessel::hardware::vdla::Encode(load);
    ASSERT_TRUE(bits.ok()) << bits.status();
    std::memcpy(dma.insn.data(), bits->words.data(), 16);
    dma.entry_shift = t.shift;
    dma.beats = t.beats;
    tick();
    dma.start = 0;
    int waited = 0;
    while (!dma.done) {
      tick();
      ASSERT_LT(++waited, 10000) << "no done";
    }
    tick();
    EXPECT_FALSE(dma.busy);
    EXPECT_TRUE(responses.empty());

    const uint32_t rows = t.y0 + t.y + t.y1, cols = t.x0 + t.x + t.x1;
    const bool anything = t.y > 0 && t.x > 0;
    int expected = 0;
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t col = 0; col < cols; ++col) {
        const bool pad = r < t.y0 || r >= t.y0 + t.y || col < t.x0 || col >= t.x0 + t.x;
        if (pad && !(t.y0 | t.y1 | t.x0 | t.x1)) continue;
        for (uint32_t b = 0; b < t.beats; ++b) {
          const int entry = static_cast<int>(t.sram_base + r * cols + col);
          Beat want{};
          if (!pad) {
            const uint64_t e = t.dram_base + (r - t.y0) * t.stride + (col - t.x0);
            want = DramBeat((e << t.shift) + b * 16);
          }
          auto it = written.find({entry, static_cast<int>(b)});
          ASSERT_NE(it, written.end()) << "entry " << entry << " beat " << b << " not written";
          ASSERT_EQ(it->second, want) << "entry " << entry << " beat " << b;
          ++expected;
        }
      }
    }
    EXPECT_EQ(writes, expected) << (anything ? "" : "(an empty tile)");
  }
}

}  // namespace
