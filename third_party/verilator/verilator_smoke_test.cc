// Verilator's runtime links and keeps simulated time.
#include <gtest/gtest.h>
#include <verilated.h>

TEST(VerilatorSmokeTest, AContextKeepsTime) {
  VerilatedContext context;
  EXPECT_EQ(context.time(), 0u);
  context.timeInc(5);
  EXPECT_EQ(context.time(), 5u);
}
