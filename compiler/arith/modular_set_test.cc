#include "compiler/arith/modular_set.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"

namespace tessel::arith {
namespace {

using ir::Expr;
using ir::IntImm;
using ir::Var;

class ModularSetTest : public ::testing::Test {
 protected:
  // x = 4k + 1, y = 6k, i in [0, 15] (and nothing modular), s in [-8, 8].
  ModularSetTest() {
    modular_[x.get()] = ModularSet::Make(4, 1);
    modular_[y.get()] = ModularSet::Make(6, 0);
    bounds_[i.get()] = {0, 15};
    bounds_[s.get()] = {-8, 8};
  }
  std::string M(const Expr& e) { return EvalModularSet(e, modular_, bounds_).ToString(); }

  Var x{"x"}, y{"y"}, i{"i"}, s{"s"};
  ModularSetMap modular_;
  ConstIntBoundMap bounds_;
};

TEST_F(ModularSetTest, Leaves) {
  EXPECT_EQ(M(IntImm(ir::kInt32, 7)), "7");
  EXPECT_EQ(M(x), "4k+1");
  EXPECT_EQ(M(i), "k");
}

TEST_F(ModularSetTest, Arithmetic) {
  EXPECT_EQ(M(ir::Add(ir::Mul(i, 8), 3)), "8k+3");
  EXPECT_EQ(M(ir::Add(x, y)), "2k+1");  // gcd(4, 6) = 2
  EXPECT_EQ(M(ir::Sub(x, 3)), "4k+2");  // 4k - 2
  EXPECT_EQ(M(ir::Mul(x, 3)), "12k+3");
  EXPECT_EQ(M(ir::Mul(x, y)), "6k");    // (4a + 1) * 6b
  EXPECT_EQ(M(ir::Mul(x, x)), "4k+1");  // 16ab + 4a + 4b + 1
}

TEST_F(ModularSetTest, Division) {
  EXPECT_EQ(M(ir::FloorDiv(ir::Add(ir::Mul(i, 8), 4), 4)), "2k+1");
  EXPECT_EQ(M(ir::FloorMod(ir::Add(ir::Mul(i, 8), 5), 4)), "1");
  EXPECT_EQ(M(ir::FloorMod(ir::Add(ir::Mul(i, 6), 5), 4)), "2k+1");  // gcd(6, 4) = 2
  EXPECT_EQ(M(ir::FloorDiv(ir::Mul(i, 6), 4)), "k");
  // Truncation needs a non-negative dividend to act like floor division.
  EXPECT_EQ(M(ir::Div(ir::Add(ir::Mul(i, 8), 4), 4)), "2k+1");
  EXPECT_EQ(M(ir::Div(ir::Add(ir::Mul(s, 8), 4), 4)), "k");
  EXPECT_EQ(M(ir::Mod(ir::Add(ir::Mul(i, 8), 5), 4)), "1");
  EXPECT_EQ(M(ir::Mod(ir::Add(ir::Mul(s, 8), 5), 4)), "4k+1");  // 1 or -3
  EXPECT_EQ(M(ir::FloorDiv(i, x)), "k");
}

TEST_F(ModularSetTest, Unions) {
  EXPECT_EQ(M(ir::Min(ir::Mul(i, 8), ir::Add(ir::Mul(i, 4), 4))), "4k");
  EXPECT_EQ(M(ir::Select(ir::LT(i, 3), ir::Mul(i, 6), ir::Add(ir::Mul(i, 6), 3))), "3k");
  EXPECT_EQ(M(ir::Max(x, ir::Add(x, 2))), "2k+1");
  EXPECT_EQ(M(ir::if_then_else(ir::LT(i, 3), IntImm(ir::kInt32, 4), IntImm(ir::kInt32, 10))),
            "6k+4");
}

TEST_F(ModularSetTest, OtherNodes) {
  Var v("v");
  EXPECT_EQ(M(ir::Let(v, ir::Mul(i, 4), ir::Add(v, 2))), "4k+2");
  EXPECT_EQ(M(ir::Ramp(ir::Mul(i, 8), 2, 4)), "2k");
  EXPECT_EQ(M(ir::Broadcast(x, 4)), "4k+1");
  EXPECT_EQ(M(ir::Cast(ir::kInt64, x)), "4k+1");
  EXPECT_EQ(M(ir::shift_left(i, 3)), "8k");
  EXPECT_EQ(M(ir::bitwise_and(ir::Add(ir::Mul(i, 8), 5), 3)), "1");
  // Narrow types wrap: no facts beyond constants and variables.
  Var b("b", ir::DataType::Int(8));
  EXPECT_EQ(M(ir::Mul(b, IntImm(ir::DataType::Int(8), 4))), "k");
}

TEST(ModularSetStructTest, MakeAndContains) {
  EXPECT_EQ(ModularSet::Make(-4, -1), (ModularSet{4, 3}));
  EXPECT_TRUE(ModularSet::Make(4, 3).Contains(-1));
  EXPECT_FALSE(ModularSet::Make(4, 3).Contains(1));
  EXPECT_TRUE(ModularSet::Constant(5).Contains(5));
  EXPECT_TRUE(ModularSet::Everything().IsEverything());
}

}  // namespace
}  // namespace tessel::arith
