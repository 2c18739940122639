// vdla_fifo (16 bits wide, 4 deep) against a std::deque: random pushes and pops, including on a
// full or empty queue, with head, empty and full checked every cycle.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "hardware/vdla/rtl/testbench/Vvdla_fifo.h"

namespace {

TEST(FifoTest, BehavesAsAQueueOfFour) {
  VerilatedContext context;
  Vvdla_fifo fifo(&context);
  auto tick = [&] {
    fifo.clk = 0;
    fifo.eval();
    fifo.clk = 1;
    fifo.eval();
  };
  fifo.rst = 1;
  fifo.push = fifo.pop = 0;
  tick();
  fifo.rst = 0;
  std::deque<uint16_t> model;
  std::mt19937 rng(3);
  for (int cycle = 0; cycle < 5000; ++cycle) {
    fifo.clk = 0;
    fifo.eval();
    ASSERT_EQ(fifo.empty, model.empty()) << cycle;
    ASSERT_EQ(fifo.full, model.size() == 4) << cycle;
    if (!model.empty()) {
      ASSERT_EQ(fifo.head, model.front()) << cycle;
    }
    const bool push = rng() % 2, pop = rng() % 2;
    const uint16_t data = static_cast<uint16_t>(rng());
    fifo.push = push;
    fifo.pop = pop;
    fifo.push_data = data;
    fifo.clk = 1;
    fifo.eval();
    // A pop of an empty queue and a push to a full one do nothing; both happen in one cycle.
    const bool popped = pop && !model.empty();
    const bool pushed = push && model.size() < 4;
    if (pushed) model.push_back(data);
    if (popped) model.pop_front();
  }
}

}  // namespace
