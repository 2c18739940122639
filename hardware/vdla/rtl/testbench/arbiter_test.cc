// vdla_arbiter on its own (four reads outstanding at most): requesters 0-2 reading and 3 writing,
// each holding a request until it is granted, as the modules do; the memory taking a request when
// ready (at random) and answering reads in order after random latencies. Checked every cycle: the
// memory sees the request of the highest-numbered requester waiting (a read only while fewer
// than four are outstanding), that requester alone is granted, and only when the memory takes it;
// each answer goes to the requester whose read it is, with the memory's data.
#include <gtest/gtest.h>

#include <optional>

#include "hardware/vdla/rtl/testbench/Vvdla_arbiter.h"
#include "hardware/vdla/rtl/testbench/Vvdla_arbiter_params.h"
#include "hardware/vdla/rtl/testbench/bench.h"

namespace tessel::hardware::vdla::testbench {
namespace {

constexpr int kOutstanding = verilated::kOUTSTANDING;
constexpr int kStore = 3;  // the one writing requester

// What memory holds at an address: a pattern, so an answer names the read it answers.
Beat MemoryBeat(uint32_t addr) {
  Beat b;
  for (int i = 0; i < 16; ++i) b[i] = static_cast<uint8_t>((addr + i) * 2654435761u >> 24);
  return b;
}

struct Request {
  uint32_t addr;
  Beat wdata;
};

TEST(ArbiterTest, GrantsByPriorityAndRoutesAnswers) {
  VerilatedContext context;
  Vvdla_arbiter a(&context);
  std::mt19937 rng(83);
  a.req_valid = 0;
  a.mem_resp_valid = 0;
  Reset(a);
  std::optional<Request> waiting[4];
  std::deque<uint32_t> reads[4];  // each requester's outstanding reads, in order
  std::deque<int> owners;         // whose read each outstanding answer is, in order
  ReadPort memory;
  int grants[4] = {0, 0, 0, 0}, answers = 0, writes_while_full = 0, most_outstanding = 0;
  for (int64_t cycle = 0; cycle < 20000; ++cycle) {
    SCOPED_TRACE(::testing::Message() << "cycle " << cycle);
    // Request rates and latencies change every 2000 cycles, so the record fills and drains.
    const int rate = 10 + cycle / 2000 % 4 * 25, latency = 2 + cycle / 2000 % 3 * 15;
    for (int r = 0; r < 4; ++r) {
      if (!waiting[r] && Chance(rng, rate)) {
        Request q{static_cast<uint32_t>(rng()) & ~15u, {}};
        for (uint8_t& byte : q.wdata) byte = static_cast<uint8_t>(rng());
        waiting[r] = q;
      }
    }
    a.clk = 0;
    a.eval();
    a.req_valid = a.req_write = 0;
    for (int r = 0; r < 4; ++r) {
      a.req_valid |= waiting[r].has_value() << r;
      a.req_write |= (r == kStore) << r;
      if (waiting[r]) {
        a.req_addr[r] = waiting[r]->addr;
        SetBytes(a.req_wdata[r], 0, waiting[r]->wdata.data(), 16);
      }
    }
    const bool ready = Chance(rng, 70);
    a.mem_req_ready = ready;
    const bool respond = memory.Due(cycle);
    a.mem_resp_valid = respond;
    if (respond) SetBytes(a.mem_resp_data, 0, memory.Front().data(), 16);
    a.eval();

    const int outstanding = static_cast<int>(owners.size());
    int pick = -1;
    for (int r = 0; r < 4; ++r) {
      if (waiting[r] && (r == kStore || outstanding < kOutstanding)) pick = r;
    }
    ASSERT_EQ(bool(a.mem_req_valid), pick >= 0);
    if (pick >= 0) {
      EXPECT_EQ(bool(a.mem_req_write), pick == kStore);
      EXPECT_EQ(a.mem_req_addr, waiting[pick]->addr);
      if (pick == kStore) {
        EXPECT_EQ(GetBeat(a.mem_req_wdata), waiting[pick]->wdata);
      }
    }
    ASSERT_EQ(int{a.req_grant}, pick >= 0 && ready ? 1 << pick : 0);
    if (respond) {
      ASSERT_FALSE(owners.empty());
      const int owner = owners.front();
      ASSERT_EQ(int{a.resp_valid}, 1 << owner);
      EXPECT_EQ(GetBeat(a.resp_data), MemoryBeat(reads[owner].front()));
      ++answers;
    } else {
      EXPECT_EQ(int{a.resp_valid}, 0);
    }

    a.clk = 1;
    a.eval();
    if (respond) {
      memory.Pop();
      reads[owners.front()].pop_front();
      owners.pop_front();
    }
    if (pick >= 0 && ready) {
      ++grants[pick];
      if (pick != kStore) {
        memory.Request(cycle, Draw(rng, 1, latency), MemoryBeat(waiting[pick]->addr));
        reads[pick].push_back(waiting[pick]->addr);
        owners.push_back(pick);
      } else if (outstanding == kOutstanding) {
        ++writes_while_full;
      }
      waiting[pick].reset();
    }
    most_outstanding = std::max(most_outstanding, static_cast<int>(owners.size()));
  }
  for (int r = 0; r < 4; ++r) EXPECT_GT(grants[r], 100) << "requester " << r;
  EXPECT_GT(answers, 1000);
  EXPECT_EQ(most_outstanding, kOutstanding);
  EXPECT_GT(writes_while_full, 10);
}

}  // namespace
}  // namespace tessel::hardware::vdla::testbench
