// Simplify on sums, products, division and modulo, and constant folding of every node kind.
#include <gtest/gtest.h>

#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::arith {
namespace {

using ir::DataType;
using ir::Expr;
using ir::IntImm;
using ir::Var;

class SimplifyArithTest : public ::testing::Test {
 protected:
  std::string S(const Expr& e) { return ir::ToString(analyzer_.Simplify(e)); }

  Var x{"x"}, y{"y"}, z{"z"}, i{"i"}, j{"j"}, n{"n"};
  Analyzer analyzer_;
};

TEST_F(SimplifyArithTest, LinearFormsCollectTerms) {
  EXPECT_EQ(S(ir::Sub(ir::Add(x, ir::Mul(2, y)), ir::Add(y, x))), "y");
  EXPECT_EQ(S(ir::Sub(ir::Add(ir::Mul(x, 4), 3), ir::Mul(x, 4))), "3");
  EXPECT_EQ(S(ir::Add(ir::Mul(y, 3), ir::Sub(x, ir::Mul(y, 3)))), "x");
  EXPECT_EQ(S(ir::Add(x, ir::Add(y, ir::Add(z, ir::Add(x, y))))), "(((x * 2) + (y * 2)) + z)");
  EXPECT_EQ(S(ir::Mul(ir::Add(x, 1), 4)), "((x * 4) + 4)");
  EXPECT_EQ(S(ir::Sub(x, ir::Sub(x, x))), "x");
}

TEST_F(SimplifyArithTest, EqualFormsPrintEqually) {
  const std::string a = S(ir::Add(ir::Add(z, ir::Mul(x, 3)), ir::Sub(y, 1)));
  const std::string b = S(ir::Sub(ir::Add(ir::Add(y, z), ir::Mul(3, x)), 1));
  const std::string c = S(ir::Add(ir::Mul(ir::Add(x, 1), 3), ir::Sub(ir::Add(z, y), 4)));
  EXPECT_EQ(a, "((((x * 3) + y) + z) - 1)");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST_F(SimplifyArithTest, Layout) {
  EXPECT_EQ(S(ir::Sub(3, x)), "(3 - x)");
  EXPECT_EQ(S(ir::Sub(0, x)), "(0 - x)");
  EXPECT_EQ(S(ir::Sub(ir::Sub(0, x), y)), "((0 - x) - y)");
  EXPECT_EQ(S(ir::Sub(ir::Sub(y, ir::Mul(x, 2)), 5)), "((y - (x * 2)) - 5)");
  EXPECT_EQ(S(ir::Sub(x, 7)), "(x - 7)");
  EXPECT_EQ(S(ir::Sub(ir::Sub(0, x), 7)), "(-7 - x)");
}

TEST_F(SimplifyArithTest, Products) {
  EXPECT_EQ(S(ir::Mul(ir::Add(x, y), ir::Sub(x, y))), "((x * x) - (y * y))");
  EXPECT_EQ(S(ir::Mul(ir::Add(x, 1), ir::Add(y, 2))), "((((x * 2) + (x * y)) + y) + 2)");
  EXPECT_EQ(S(ir::Mul(ir::Mul(y, x), 3)), "((x * y) * 3)");
  EXPECT_EQ(S(ir::Sub(ir::Mul(x, y), ir::Mul(y, x))), "0");
}

TEST_F(SimplifyArithTest, ProductsStopExpandingPastTheCap) {
  // (a + b + c + d + e) squared has 25 terms: beyond the cap it stays one product.
  Var a("a"), b("b"), c("c"), d("d"), e("e");
  const Expr sum = ir::Add(ir::Add(ir::Add(ir::Add(a, b), c), d), e);
  EXPECT_EQ(S(ir::Mul(sum, sum)), "(((((a + b) + c) + d) + e) * ((((a + b) + c) + d) + e))");
  // A long chain of products: distribution would copy each product into every term of the next
  // (exponential as a tree); the result stays linear in the chain's length.
  Expr chain = sum;
  for (int k = 0; k < 40; ++k) chain = ir::Mul(chain, ir::Add(sum, k));
  EXPECT_LT(S(chain).size(), 40 * 400u);
}

TEST_F(SimplifyArithTest, DivisionByConstants) {
  EXPECT_EQ(S(ir::FloorDiv(x, 1)), "x");
  EXPECT_EQ(S(ir::FloorMod(x, 1)), "0");
  EXPECT_EQ(S(ir::FloorDiv(x, -1)), "(0 - x)");
  EXPECT_EQ(S(ir::FloorDiv(ir::FloorDiv(x, 4), 8)), "floordiv(x, 32)");
  EXPECT_EQ(S(ir::FloorMod(ir::FloorMod(x, 8), 4)), "floormod(x, 4)");
  EXPECT_EQ(S(ir::FloorMod(ir::Add(ir::Mul(x, 6), 4), 3)), "1");
  EXPECT_EQ(S(ir::FloorDiv(ir::Mul(x, 6), 4)), "floordiv((x * 3), 2)");
  // 6x % 4 == 2 * (x % 2), once 2x is known not to overflow.
  EXPECT_EQ(S(ir::FloorMod(ir::Mul(x, 6), 4)), "floormod((x * 6), 4)");
  analyzer_.Bind(n, ir::Range{-100, 200});
  EXPECT_EQ(S(ir::FloorMod(ir::Mul(n, 6), 4)), "(floormod(n, 2) * 2)");
  EXPECT_EQ(S(ir::FloorMod(ir::Mul(x, 5), 4)), "floormod(x, 4)");
  EXPECT_EQ(S(ir::FloorDiv(ir::Add(ir::Mul(x, 8), y), 8)), "(x + floordiv(y, 8))");
  EXPECT_EQ(S(ir::FloorMod(ir::Add(ir::Mul(x, 8), y), 8)), "floormod(y, 8)");
  EXPECT_EQ(S(ir::Add(ir::Mul(ir::FloorDiv(x, 8), 8), ir::FloorMod(x, 8))), "x");
  EXPECT_EQ(S(ir::Add(ir::Mul(ir::Div(x, 8), 8), ir::Mod(x, 8))), "x");
  // Splits of splits: floordiv(x, 32)*4 + floormod(floordiv(x, 8), 4) == floordiv(x, 8).
  EXPECT_EQ(S(ir::Add(ir::Mul(ir::FloorDiv(x, 32), 4), ir::FloorMod(ir::FloorDiv(x, 8), 4))),
            "floordiv(x, 8)");
}

TEST_F(SimplifyArithTest, DivisionUnderBounds) {
  analyzer_.Bind(i, ir::Range{0, 16});
  analyzer_.Bind(j, ir::Range{0, 4});
  EXPECT_EQ(S(ir::FloorDiv(ir::Add(ir::Mul(i, 4), j), 4)), "i");
  EXPECT_EQ(S(ir::FloorMod(ir::Add(ir::Mul(i, 4), j), 4)), "j");
  EXPECT_EQ(S(ir::Div(ir::Add(ir::Mul(i, 4), j), 4)), "i");
  EXPECT_EQ(S(ir::Mod(ir::Add(ir::Mul(i, 4), j), 4)), "j");
  EXPECT_EQ(S(ir::FloorDiv(ir::Add(ir::Mul(i, 4), ir::Add(j, 5)), 4)),
            "((i + floordiv((j + 1), 4)) + 1)");
  EXPECT_EQ(S(ir::FloorDiv(j, 8)), "0");
  EXPECT_EQ(S(ir::FloorMod(j, 8)), "j");
  EXPECT_EQ(S(ir::FloorDiv(ir::Sub(j, 4), 4)), "-1");
  EXPECT_EQ(S(ir::FloorMod(ir::Sub(j, 4), 4)), "j");
  EXPECT_EQ(S(ir::FloorDiv(i, 16)), "0");
  EXPECT_EQ(S(ir::FloorDiv(i, -16)), "floordiv(i, -16)");  // -1 for i > 0, 0 for i == 0
  EXPECT_EQ(S(ir::FloorDiv(ir::Add(i, 1), -16)), "-1");
  // Truncation of a provably non-negative dividend acts like floor division.
  EXPECT_EQ(S(ir::Div(ir::Add(ir::Mul(i, 8), ir::Add(j, 3)), 4)),
            "((i * 2) + truncdiv((j + 3), 4))");
  EXPECT_EQ(S(ir::Mod(ir::Add(ir::Mul(i, 8), j), 4)), "j");
  // Nested truncation of a non-negative value, like floor division.
  EXPECT_EQ(S(ir::Div(ir::Div(i, 2), 4)), "truncdiv(i, 8)");
  EXPECT_EQ(S(ir::Mod(ir::Mod(ir::Add(i, 100), 8), 4)), "truncmod(i, 4)");
  EXPECT_EQ(S(ir::Mod(ir::Mod(ir::Sub(i, 100), 8), 4)), "truncmod(truncmod((i - 100), 8), 4)");
  // ... and is left alone when the dividend may be negative.
  EXPECT_EQ(S(ir::Div(ir::Sub(j, ir::Mul(i, 4)), 4)), "truncdiv((j - (i * 4)), 4)");
}

TEST_F(SimplifyArithTest, DivisionBySymbols) {
  EXPECT_EQ(S(ir::FloorDiv(ir::Mul(x, n), n)), "x");
  EXPECT_EQ(S(ir::FloorMod(ir::Mul(x, n), n)), "0");
  EXPECT_EQ(S(ir::FloorDiv(n, n)), "1");
  EXPECT_EQ(S(ir::FloorDiv(ir::Add(ir::Mul(x, n), y), n)), "(x + floordiv(y, n))");
  EXPECT_EQ(S(ir::Div(ir::Mul(x, n), n)), "x");
  analyzer_.Bind(n, ir::Range{8, 8});
  analyzer_.Bind(j, ir::Range{0, 4});
  EXPECT_EQ(S(ir::FloorDiv(j, n)), "0");
  EXPECT_EQ(S(ir::FloorMod(j, n)), "j");
}

TEST_F(SimplifyArithTest, NarrowTypesWrap) {
  const DataType u8 = DataType::UInt(8);
  Var a("a", u8), b("b", u8);
  // x - y is y's negation added: uint8 coefficients read as signed for the layout.
  EXPECT_EQ(S(ir::Sub(ir::Add(a, b), b)), "a");
  EXPECT_EQ(S(ir::Sub(a, b)), "(a - b)");
  EXPECT_EQ(S(ir::Add(a, IntImm(u8, 255))), "(a - 1u8)");
  // No division rule assumes an unwrapped sum for a narrow type.
  analyzer_.Bind(a, ir::Range{IntImm(u8, 0), IntImm(u8, 4)});
  EXPECT_EQ(S(ir::FloorDiv(ir::Add(ir::Mul(b, IntImm(u8, 4)), a), IntImm(u8, 4))),
            "floordiv((a + (b * 4u8)), 4u8)");
  EXPECT_EQ(S(ir::FloorDiv(a, IntImm(u8, 4))), "0u8");
}

TEST_F(SimplifyArithTest, FloatsAreOnlyFolded) {
  Var f("f", ir::kFloat32);
  EXPECT_EQ(
      S(ir::Sub(ir::Add(f, ir::FloatImm(ir::kFloat32, 1.0)), ir::FloatImm(ir::kFloat32, 1.0))),
      "((f + 1.0f) - 1.0f)");
  EXPECT_EQ(S(ir::Mul(ir::FloatImm(ir::kFloat32, 1.5), ir::FloatImm(ir::kFloat32, 2.0))), "3.0f");
  EXPECT_EQ(S(ir::Div(ir::FloatImm(ir::kFloat32, 1.0), ir::FloatImm(ir::kFloat32, 3.0))),
            "0.333333343f");
}

// Folding a node of two immediates gives what op.h's operators give for them.
TEST(ConstantFoldingTest, MatchesOpHFolding) {
  const std::vector<DataType> types = {DataType::Int(8), DataType::Int(16), ir::kInt32,
                                       ir::kInt64,       DataType::UInt(8), DataType::UInt(32)};
  const std::vector<int64_t> values = {0,   1,    -1,  2,   3,       -7,           7,
                                       100, -128, 127, 255, 1000000, -2147483648LL};
  Analyzer analyzer;
  for (const DataType t : types) {
    for (const int64_t va : values) {
      for (const int64_t vb : values) {
        const Expr a = IntImm(t, va), b = IntImm(t, vb);
        auto check = [&](const Expr& node, const Expr& folded) {
          EXPECT_EQ(ir::ToString(analyzer.Simplify(node)), ir::ToString(folded))
              << ir::ToString(node) << " of " << t.ToString();
        };
        check(ir::Add(a, b), a + b);
        check(ir::Sub(a, b), a - b);
        // op.h multiplies the stored int64 values; where that overflows it is undefined.
        int64_t product;
        if (!__builtin_mul_overflow(*ir::AsConstInt(a), *ir::AsConstInt(b), &product)) {
          check(ir::Mul(a, b), a * b);
        }
        check(ir::Min(a, b), ir::min(a, b));
        check(ir::Max(a, b), ir::max(a, b));
        check(ir::LT(a, b), a < b);
        check(ir::LE(a, b), a <= b);
        check(ir::GT(a, b), a > b);
        check(ir::GE(a, b), a >= b);
        check(ir::EQ(a, b), a == b);
        check(ir::NE(a, b), a != b);
        if (!ir::IsConstInt(b, 0)) {
          check(ir::FloorDiv(a, b), ir::floordiv(a, b));
          check(ir::FloorMod(a, b), ir::floormod(a, b));
          check(ir::Div(a, b), ir::truncdiv(a, b));
          check(ir::Mod(a, b), ir::truncmod(a, b));
        }
        check(ir::Cast(ir::kInt64, a), ir::cast(ir::kInt64, a));
        check(ir::Cast(DataType::Int(8), a), ir::cast(DataType::Int(8), a));
        check(ir::Cast(ir::kFloat32, a), ir::cast(ir::kFloat32, a));
        check(ir::Cast(ir::kBool, a), ir::cast(ir::kBool, a));
      }
    }
  }
  const Expr t = IntImm(ir::kBool, 1), f = IntImm(ir::kBool, 0);
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::And(t, f))), "false");
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Or(t, f))), "true");
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Not(f))), "true");
  EXPECT_EQ(
      ir::ToString(analyzer.Simplify(ir::Select(t, IntImm(ir::kInt32, 1), IntImm(ir::kInt32, 2)))),
      "1");
  const Expr p = ir::FloatImm(ir::kFloat32, 2.5), q = ir::FloatImm(ir::kFloat32, -0.5);
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Add(p, q))), ir::ToString(p + q));
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Div(p, q))), ir::ToString(p / q));
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Min(p, q))), ir::ToString(ir::min(p, q)));
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::LT(p, q))), ir::ToString(p < q));
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Cast(ir::kInt32, p))),
            ir::ToString(ir::cast(ir::kInt32, p)));
  EXPECT_EQ(
      ir::ToString(analyzer.Simplify(ir::shift_left(IntImm(ir::kInt32, 3), IntImm(ir::kInt32, 4)))),
      "48");
  EXPECT_EQ(ir::ToString(
                analyzer.Simplify(ir::bitwise_and(IntImm(ir::kInt32, 12), IntImm(ir::kInt32, 10)))),
            "8");
}

TEST(ConstantFoldingTest, WrapsWhereOpHWouldOverflow) {
  Analyzer analyzer;
  const Expr min64 = IntImm(ir::kInt64, INT64_MIN), minus_one = IntImm(ir::kInt64, -1);
  EXPECT_EQ(ir::ToString(
                analyzer.Simplify(ir::Add(IntImm(ir::kInt64, INT64_MAX), IntImm(ir::kInt64, 1)))),
            "-9223372036854775808i64");
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Div(min64, minus_one))), "-9223372036854775808i64");
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Mod(min64, minus_one))), "0i64");
  EXPECT_EQ(
      ir::ToString(analyzer.Simplify(ir::FloorDiv(IntImm(ir::kInt32, 7), IntImm(ir::kInt32, 0)))),
      "floordiv(7, 0)");
  // A float too large for the integer type is left to the target.
  EXPECT_EQ(ir::ToString(analyzer.Simplify(
                ir::Cast(ir::kInt32, ir::FloatImm(ir::DataType::Float(64), 1e30)))),
            "int32(1e+30)");
}

}  // namespace
}  // namespace tessel::arith
