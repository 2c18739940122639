// Simplify on Select, if_then_else, likely, Let, Cast, vectors, loads and reductions.
#include <gtest/gtest.h>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::arith {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

class SimplifyMiscTest : public ::testing::Test {
 protected:
  std::string S(const Expr& e) { return ir::ToString(analyzer_.Simplify(e)); }

  Var x{"x"}, y{"y"}, z{"z"}, i{"i"}, j{"j"};
  Analyzer analyzer_;
};

TEST_F(SimplifyMiscTest, Select) {
  EXPECT_EQ(S(ir::Select(ir::LT(x, y), x, y)), "min(x, y)");
  EXPECT_EQ(S(ir::Select(ir::LT(x, y), y, x)), "max(x, y)");
  EXPECT_EQ(S(ir::Select(ir::LE(x, y), x, y)), "min(x, y)");
  EXPECT_EQ(S(ir::Select(ir::LT(x, y), z, z)), "z");
  Var b("b", ir::kBool);
  EXPECT_EQ(S(ir::Select(ir::Not(b), z, x)), "select(b, x, z)");
  EXPECT_EQ(S(ir::Select(ir::Not(ir::LT(x, y)), z, x)), "select((y <= x), z, x)");
  EXPECT_EQ(S(ir::Select(ir::LT(x, y), ir::Select(ir::LT(x, y), z, y), x)),
            "select((x < y), z, x)");
  EXPECT_EQ(S(ir::Select(ir::LT(x, y), ir::IntImm(ir::kBool, 1), ir::IntImm(ir::kBool, 0))),
            "(x < y)");
  EXPECT_EQ(S(ir::Select(ir::LT(x, y), ir::IntImm(ir::kBool, 0), ir::IntImm(ir::kBool, 1))),
            "(y <= x)");
  analyzer_.Bind(i, ir::Range{0, 16});
  EXPECT_EQ(S(ir::Select(ir::LT(i, 16), x, y)), "x");
  EXPECT_EQ(S(ir::Select(ir::GE(i, 16), x, y)), "y");
}

TEST_F(SimplifyMiscTest, IntrinsicsWithConditions) {
  analyzer_.Bind(i, ir::Range{0, 16});
  EXPECT_EQ(S(ir::if_then_else(ir::LT(i, 16), x, y)), "x");
  EXPECT_EQ(S(ir::if_then_else(ir::LT(i, 0), x, y)), "y");
  EXPECT_EQ(S(ir::if_then_else(ir::LT(i, 8), x, x)), "x");
  EXPECT_EQ(S(ir::if_then_else(ir::LT(i, 8), x, y)), "if_then_else((i < 8), x, y)");
  EXPECT_EQ(S(ir::likely(ir::LT(i, 16))), "true");
  EXPECT_EQ(S(ir::likely(ir::LT(i, 10))), "likely((i < 10))");
  EXPECT_EQ(S(ir::likely(ir::LT(ir::Add(i, 1), 11))), "likely((i < 10))");
}

TEST_F(SimplifyMiscTest, SideEffectsAreKept) {
  const Expr sync = ir::Call(ir::kInt32, ir::Intrinsic::kCallExtern, {ir::StringImm("tick")});
  // Select evaluates both branches: the call stays even where its value is not chosen.
  EXPECT_EQ(S(ir::Select(ir::IntImm(ir::kBool, 1), x, sync)),
            "select(true, x, call_extern(\"tick\"))");
  EXPECT_EQ(S(ir::Sub(sync, sync)), "(call_extern(\"tick\") - call_extern(\"tick\"))");
  EXPECT_EQ(S(ir::Min(sync, sync)), "min(call_extern(\"tick\"), call_extern(\"tick\"))");
  EXPECT_EQ(S(ir::Add(ir::Add(sync, 1), 2)), "((call_extern(\"tick\") + 1) + 2)");
  // if_then_else evaluates only the branch taken.
  EXPECT_EQ(S(ir::if_then_else(ir::IntImm(ir::kBool, 1), x, sync)), "x");
}

TEST_F(SimplifyMiscTest, Let) {
  Var v("v"), w("w");
  EXPECT_EQ(S(ir::Let(v, 3, ir::Add(v, x))), "(x + 3)");
  EXPECT_EQ(S(ir::Let(v, y, ir::Sub(ir::Add(v, x), y))), "x");
  EXPECT_EQ(S(ir::Let(v, ir::Add(x, 1), ir::Mul(v, v))), "(let v = (x + 1) in (v * v))");
  EXPECT_EQ(S(ir::Let(v, ir::Add(x, 1), y)), "y");
  // The bound variable carries its value's facts.
  analyzer_.Bind(i, ir::Range{0, 16});
  EXPECT_EQ(S(ir::Let(v, ir::Mul(i, 4),
                      ir::Add(ir::FloorMod(v, 4), ir::Cast(ir::kInt32, ir::LT(v, 64))))),
            "1");
  EXPECT_EQ(S(ir::Let(w, ir::Mul(i, 4), ir::Select(ir::LT(w, 64), w, 0))),
            "(let w = (i * 4) in w)");
}

TEST_F(SimplifyMiscTest, Cast) {
  const DataType i64 = ir::kInt64, i8 = DataType::Int(8), u8 = DataType::UInt(8);
  EXPECT_EQ(S(ir::Cast(ir::kInt32, ir::Cast(i64, x))), "x");
  EXPECT_EQ(S(ir::Cast(i8, ir::Cast(ir::kInt32, Var("c", i8)))), "c");
  EXPECT_EQ(S(ir::Cast(ir::kInt32, ir::Cast(i8, x))), "int32(int8(x))");  // narrowing is not undone
  EXPECT_EQ(S(ir::Cast(u8, ir::Cast(ir::kInt32, Var("u", u8)))), "u");
  EXPECT_EQ(S(ir::Cast(ir::kBool, ir::Cast(ir::kInt32, ir::LT(x, y)))), "(x < y)");
  EXPECT_EQ(S(ir::Cast(ir::kInt32, ir::Cast(ir::DataType::Float(64), x))), "x");
  EXPECT_EQ(S(ir::Cast(ir::kInt32, ir::Cast(ir::kFloat32, x))),
            "int32(float32(x))");  // 24-bit mantissa
  EXPECT_EQ(S(ir::Cast(i64, ir::Add(ir::IntImm(ir::kInt32, 2), ir::IntImm(ir::kInt32, 3)))),
            "5i64");
  EXPECT_EQ(S(ir::Cast(DataType::Int(32, 4), ir::Broadcast(ir::Cast(i64, x), 4))),
            "broadcast(x, 4)");
}

TEST_F(SimplifyMiscTest, Vectors) {
  analyzer_.Bind(i, ir::Range{0, 16});
  const Expr four = ir::Broadcast(ir::IntImm(ir::kInt32, 4), 4);
  EXPECT_EQ(S(ir::Add(ir::Ramp(ir::Mul(i, 4), 1, 4), ir::Broadcast(2, 4))),
            "ramp(((i * 4) + 2), 1, 4)");
  EXPECT_EQ(S(ir::Add(ir::Ramp(x, 1, 4), ir::Ramp(y, 2, 4))), "ramp((x + y), 3, 4)");
  EXPECT_EQ(S(ir::Sub(ir::Ramp(x, 1, 4), ir::Ramp(x, 1, 4))), "broadcast(0, 4)");
  EXPECT_EQ(S(ir::Sub(ir::Broadcast(y, 4), ir::Ramp(x, 2, 4))), "ramp((y - x), -2, 4)");
  EXPECT_EQ(S(ir::Mul(ir::Ramp(x, 1, 4), four)), "ramp((x * 4), 4, 4)");
  EXPECT_EQ(S(ir::Ramp(x, 0, 4)), "broadcast(x, 4)");
  EXPECT_EQ(S(ir::Add(ir::Broadcast(x, 4), ir::Broadcast(ir::Sub(y, x), 4))), "broadcast(y, 4)");
  // Lanes within one block of the divisor: the split of a vectorized index.
  EXPECT_EQ(S(ir::FloorDiv(ir::Ramp(ir::Mul(i, 8), 1, 4), ir::Broadcast(8, 4))), "broadcast(i, 4)");
  EXPECT_EQ(S(ir::FloorMod(ir::Ramp(ir::Mul(i, 8), 1, 4), ir::Broadcast(8, 4))), "ramp(0, 1, 4)");
  EXPECT_EQ(S(ir::FloorMod(ir::Ramp(ir::Add(ir::Mul(i, 8), 4), 1, 4), ir::Broadcast(8, 4))),
            "ramp(4, 1, 4)");
  EXPECT_EQ(S(ir::FloorDiv(ir::Ramp(ir::Add(ir::Mul(i, 8), 6), 1, 4), ir::Broadcast(8, 4))),
            "floordiv(ramp(((i * 8) + 6), 1, 4), broadcast(8, 4))");
  EXPECT_EQ(S(ir::LT(ir::Ramp(i, 1, 4), ir::Broadcast(20, 4))), "broadcast(true, 4)");
  const Expr lanes_lt = ir::LT(ir::Ramp(x, 1, 4), ir::Broadcast(y, 4));
  const Expr all = ir::Broadcast(ir::IntImm(ir::kBool, 1), 4);
  const Expr none = ir::Broadcast(ir::IntImm(ir::kBool, 0), 4);
  EXPECT_EQ(S(ir::And(all, lanes_lt)), "(ramp(x, 1, 4) < broadcast(y, 4))");
  EXPECT_EQ(S(ir::And(lanes_lt, all)), "(ramp(x, 1, 4) < broadcast(y, 4))");
  EXPECT_EQ(S(ir::And(lanes_lt, none)), "broadcast(false, 4)");
  EXPECT_EQ(S(ir::Or(ir::Broadcast(ir::LT(x, y), 4), none)), "broadcast((x < y), 4)");
  EXPECT_EQ(S(ir::Or(lanes_lt, all)), "broadcast(true, 4)");
}

TEST_F(SimplifyMiscTest, LoadsAndReductions) {
  ir::Buffer a = ir::Buffer::Declare("A", {64}, ir::kFloat32);
  EXPECT_EQ(S(ir::BufferLoad(a, {ir::Sub(ir::Add(x, 3), x)})), "A[3]");
  const Expr load = ir::BufferLoad(a, {x});
  EXPECT_TRUE(analyzer_.Simplify(load).same_as(load));
  // Reduction axes are bound inside the reduction.
  ir::IterVar k(Var("k"), ir::Range{0, 8}, ir::IterVarType::kCommReduce);
  Var lhs("lhs", ir::kFloat32), rhs("rhs", ir::kFloat32);
  ir::CommReducer sum({lhs}, {rhs}, {ir::Add(lhs, rhs)}, {ir::FloatImm(ir::kFloat32, 0)});
  const Expr body = ir::BufferLoad(a, {ir::Add(ir::Mul(x, 8), ir::FloorMod(k.var(), 8))});
  const Expr reduce = ir::Reduce(sum, {body}, {k}, ir::LT(k.var(), 8), 0);
  const std::string text = S(reduce);
  EXPECT_NE(text.find("A[(k + (x * 8))]"), std::string::npos) << text;
  EXPECT_EQ(text.find("where"), std::string::npos) << text;
  EXPECT_EQ(analyzer_.ConstIntBound(k.var()).ToString(), "[-2147483648, 2147483647]");
}

TEST_F(SimplifyMiscTest, DeepExpressionsStayFast) {
  // A long sum and a deep nest of min/max: each must simplify in one pass without blowing up.
  Expr sum = x;
  for (int k = 0; k < 2000; ++k) sum = ir::Add(sum, ir::Mul(y, k % 7 - 3));
  EXPECT_EQ(S(sum), "(x - (y * 5))");
  Expr nest = x;
  for (int k = 0; k < 200; ++k)
    nest = k % 2 ? ir::Min(nest, ir::Add(y, k)) : ir::Max(nest, ir::Sub(z, k));
  EXPECT_LT(S(nest).size(), 20000u);
}

}  // namespace
}  // namespace tessel::arith
