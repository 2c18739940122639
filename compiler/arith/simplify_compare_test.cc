// Simplify on comparisons, And/Or/Not, and Min/Max.
#include <gtest/gtest.h>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::arith {
namespace {

using ir::Expr;
using ir::Var;

class SimplifyCompareTest : public ::testing::Test {
 protected:
  std::string S(const Expr& e) { return ir::ToString(analyzer_.Simplify(e)); }

  Var x{"x"}, y{"y"}, z{"z"}, i{"i"}, j{"j"}, n{"n"};
  Analyzer analyzer_;
};

TEST_F(SimplifyCompareTest, Structural) {
  EXPECT_EQ(S(ir::LT(x, x)), "false");
  EXPECT_EQ(S(ir::LE(x, x)), "true");
  EXPECT_EQ(S(ir::LT(ir::Add(x, 1), x)), "false");
  EXPECT_EQ(S(ir::GT(x, y)), "(y < x)");
  EXPECT_EQ(S(ir::GE(x, y)), "(y <= x)");
  EXPECT_EQ(S(ir::EQ(ir::Mul(x, 4), ir::Add(ir::Mul(y, 4), 2))), "false");
  EXPECT_EQ(S(ir::NE(ir::Mul(x, 4), ir::Add(ir::Mul(y, 4), 2))), "true");
  EXPECT_EQ(S(ir::LT(ir::Mul(x, 4), 7)), "(x < 2)");
  EXPECT_EQ(S(ir::LE(ir::Mul(x, 4), 7)), "(x <= 1)");
  EXPECT_EQ(S(ir::EQ(ir::Mul(x, 4), 8)), "(x == 2)");
  // Dividing by the coefficients' gcd rebuilds the sides, which must then provably fit.
  EXPECT_EQ(S(ir::LT(ir::Sub(ir::Mul(x, 6), ir::Mul(y, 4)), 3)), "(((x * 6) - (y * 4)) < 3)");
  analyzer_.Bind(x, ir::Range{-1000, 2000});
  analyzer_.Bind(y, ir::Range{-1000, 2000});
  EXPECT_EQ(S(ir::LT(ir::Sub(ir::Mul(x, 6), ir::Mul(y, 4)), 3)), "((x * 3) < ((y * 2) + 2))");
  EXPECT_EQ(S(ir::GE(ir::Add(x, 3), ir::Add(y, 1))), "(y <= (x + 2))");
}

TEST_F(SimplifyCompareTest, Bounds) {
  analyzer_.Bind(i, ir::Range{0, 64});
  analyzer_.Bind(j, ir::Range{0, 4});
  EXPECT_EQ(S(ir::LT(i, 64)), "true");
  EXPECT_EQ(S(ir::LT(i, 63)), "(i < 63)");
  EXPECT_EQ(S(ir::GE(i, 0)), "true");
  EXPECT_EQ(S(ir::LT(ir::Add(ir::Mul(i, 4), j), 256)), "true");
  EXPECT_EQ(S(ir::EQ(i, -1)), "false");
  EXPECT_EQ(S(ir::NE(ir::Add(j, 5), 2)), "true");
  EXPECT_EQ(S(ir::LT(i, j)), "(i < j)");
  // i - j is within [-3, 63]: i >= j - 3 always.
  EXPECT_EQ(S(ir::GE(ir::Add(i, 3), j)), "true");
}

TEST_F(SimplifyCompareTest, ModularSets) {
  Var a("a");
  analyzer_.Bind(a, ir::Add(ir::Mul(x, 4), 1));  // a = 4x + 1
  EXPECT_EQ(S(ir::EQ(ir::FloorMod(a, 4), 1)), "true");
  EXPECT_EQ(S(ir::EQ(ir::FloorMod(a, 2), 0)), "false");
  Var b("b");
  analyzer_.BindFacts(b, ir::Mul(y, 8));  // b stays, known to be 8y
  EXPECT_EQ(S(ir::NE(b, 3)), "true");
  EXPECT_EQ(S(ir::EQ(ir::FloorMod(b, 4), 0)), "true");
}

TEST_F(SimplifyCompareTest, SymbolicRanges) {
  analyzer_.Bind(i, ir::Range{0, n});
  EXPECT_EQ(S(ir::LT(i, n)), "true");
  EXPECT_EQ(S(ir::GE(i, n)), "false");
  EXPECT_EQ(S(ir::LE(ir::Add(i, 1), n)), "true");
  EXPECT_EQ(S(ir::LT(ir::Add(i, 1), n)), "((i + 1) < n)");
  EXPECT_EQ(S(ir::Min(i, ir::Sub(n, 1))), "i");
  analyzer_.Bind(j, ir::Range{0, i});
  EXPECT_EQ(S(ir::LT(j, n)), "true");
}

TEST_F(SimplifyCompareTest, Logic) {
  EXPECT_EQ(S(ir::And(ir::LT(x, 4), ir::LT(x, 8))), "(x < 4)");
  EXPECT_EQ(S(ir::Or(ir::LT(x, 4), ir::LT(x, 8))), "(x < 8)");
  EXPECT_EQ(S(ir::And(ir::LT(x, 4), ir::GT(x, 8))), "false");
  EXPECT_EQ(S(ir::And(ir::LT(x, 6), ir::GT(x, 4))), "((x < 6) && (4 < x))");
  EXPECT_EQ(S(ir::Or(ir::LT(x, 5), ir::GE(x, 5))), "true");
  EXPECT_EQ(S(ir::Or(ir::LT(x, 5), ir::GT(x, 5))), "((x < 5) || (5 < x))");
  const Expr c = ir::LT(x, y);
  EXPECT_EQ(S(ir::And(c, c)), "(x < y)");
  EXPECT_EQ(S(ir::And(c, ir::Not(c))), "false");
  EXPECT_EQ(S(ir::Or(ir::Not(c), c)), "true");
  EXPECT_EQ(S(ir::And(ir::Or(c, ir::LT(y, z)), c)), "(x < y)");
  EXPECT_EQ(S(ir::Or(c, ir::And(c, ir::LT(y, z)))), "(x < y)");
  EXPECT_EQ(S(ir::And(c, ir::IntImm(ir::kBool, 1))), "(x < y)");
  EXPECT_EQ(S(ir::Or(c, ir::IntImm(ir::kBool, 1))), "true");
  EXPECT_EQ(S(ir::Not(ir::Not(c))), "(x < y)");
  EXPECT_EQ(S(ir::Not(ir::LT(x, y))), "(y <= x)");
  EXPECT_EQ(S(ir::Not(ir::LE(x, y))), "(y < x)");
  EXPECT_EQ(S(ir::Not(ir::EQ(x, y))), "(x != y)");
  // NaN: !(a < b) is not b <= a for floats.
  Var f("f", ir::kFloat32), g("g", ir::kFloat32);
  EXPECT_EQ(S(ir::Not(ir::LT(f, g))), "!(f < g)");
  EXPECT_EQ(S(ir::LT(f, f)), "(f < f)");
}

TEST_F(SimplifyCompareTest, MinMax) {
  EXPECT_EQ(S(ir::Min(x, x)), "x");
  EXPECT_EQ(S(ir::Min(y, x)), "min(x, y)");
  EXPECT_EQ(S(ir::Min(3, x)), "min(x, 3)");
  EXPECT_EQ(S(ir::Min(ir::Add(x, 1), ir::Add(x, 2))), "(x + 1)");
  EXPECT_EQ(S(ir::Max(ir::Add(x, 1), ir::Add(x, 2))), "(x + 2)");
  EXPECT_EQ(S(ir::Max(ir::Min(x, y), x)), "x");
  EXPECT_EQ(S(ir::Min(ir::Max(x, y), y)), "y");
  EXPECT_EQ(S(ir::Min(ir::Min(x, y), x)), "min(x, y)");
  EXPECT_EQ(S(ir::Min(ir::Min(x, 3), 5)), "min(x, 3)");
  EXPECT_EQ(S(ir::Max(5, ir::Max(x, 3))), "max(x, 5)");
  EXPECT_EQ(S(ir::Min(ir::Add(x, z), ir::Add(y, z))), "(z + min(x, y))");
  EXPECT_EQ(S(ir::Min(ir::Mul(x, 4), ir::Mul(y, 4))), "(min(x, y) * 4)");
  EXPECT_EQ(S(ir::Min(ir::Add(ir::Mul(x, 4), 4), ir::Mul(y, 8))), "(min((x + 1), (y * 2)) * 4)");
  EXPECT_EQ(S(ir::Max(ir::FloorDiv(x, 8), ir::FloorDiv(y, 8))), "floordiv(max(x, y), 8)");
  analyzer_.Bind(i, ir::Range{0, 16});
  analyzer_.Bind(j, ir::Range{0, 4});
  EXPECT_EQ(S(ir::Min(i, 20)), "i");
  EXPECT_EQ(S(ir::Max(i, 20)), "20");
  EXPECT_EQ(S(ir::Max(ir::Add(ir::Mul(i, 4), j), 63)), "63");
  EXPECT_EQ(S(ir::Min(ir::Add(ir::Mul(i, 4), j), ir::Add(ir::Mul(i, 4), 4))), "((i * 4) + j)");
  EXPECT_EQ(S(ir::Min(i, 8)), "min(i, 8)");
  // Floats: only identical operands and immediates.
  Var f("f", ir::kFloat32);
  EXPECT_EQ(S(ir::Min(f, f)), "f");
  EXPECT_EQ(S(ir::Min(ir::Add(f, ir::FloatImm(ir::kFloat32, 1)), f)), "min((f + 1.0f), f)");
}

}  // namespace
}  // namespace tessel::arith
