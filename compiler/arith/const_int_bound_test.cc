#include "compiler/arith/const_int_bound.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"

namespace tessel::arith {
namespace {

using ir::DataType;
using ir::Expr;
using ir::IntImm;
using ir::Var;

constexpr int64_t kInf = ConstIntBound::kPosInf;
constexpr int64_t kNegInf = ConstIntBound::kNegInf;

class ConstIntBoundTest : public ::testing::Test {
 protected:
  // i in [0, 15], j in [0, 3], n in [1, 64], s in [-8, 8], d in [-4, -2].
  ConstIntBoundTest() {
    vars_[i.get()] = {0, 15};
    vars_[j.get()] = {0, 3};
    vars_[n.get()] = {1, 64};
    vars_[s.get()] = {-8, 8};
    vars_[d.get()] = {-4, -2};
  }
  std::string B(const Expr& e) { return EvalConstIntBound(e, vars_).ToString(); }

  Var i{"i"}, j{"j"}, n{"n"}, s{"s"}, d{"d"}, free{"free"};
  ConstIntBoundMap vars_;
};

TEST_F(ConstIntBoundTest, LeavesAndTypes) {
  EXPECT_EQ(B(IntImm(ir::kInt32, 7)), "[7, 7]");
  EXPECT_EQ(B(i), "[0, 15]");
  EXPECT_EQ(B(free), "[-2147483648, 2147483647]");
  EXPECT_EQ(B(Var("w", ir::kInt64)), "[-inf, +inf]");
  EXPECT_EQ(B(Var("u", DataType::UInt(8))), "[0, 255]");
  EXPECT_EQ(B(Var("b", ir::kBool)), "[0, 1]");
  EXPECT_EQ(B(Var("f", ir::kFloat32)), "[-inf, +inf]");
  EXPECT_EQ(B(IntImm(DataType::UInt(64), -1)), "[0, +inf]");  // 2^64 - 1
}

TEST_F(ConstIntBoundTest, Arithmetic) {
  EXPECT_EQ(B(ir::Add(ir::Mul(i, 4), j)), "[0, 63]");
  EXPECT_EQ(B(ir::Sub(i, j)), "[-3, 15]");
  EXPECT_EQ(B(ir::Mul(s, s)), "[-64, 64]");
  EXPECT_EQ(B(ir::Mul(i, -2)), "[-30, 0]");
  // Sums of index types do not wrap (node.h): the result is clipped to the type.
  EXPECT_EQ(B(ir::Add(free, 1)), "[-2147483647, 2147483647]");
}

TEST_F(ConstIntBoundTest, NarrowTypesWrap) {
  Var u("u", DataType::UInt(8));
  Var b("b", DataType::Int(8));
  ConstIntBoundMap vars{{u.get(), {0, 100}}, {b.get(), {-10, 10}}};
  EXPECT_EQ(EvalConstIntBound(ir::Add(u, IntImm(DataType::UInt(8), 100)), vars).ToString(),
            "[100, 200]");
  // 100 + 200 may wrap past 255: the whole type.
  EXPECT_EQ(EvalConstIntBound(ir::Add(u, IntImm(DataType::UInt(8), 200)), vars).ToString(),
            "[0, 255]");
  EXPECT_EQ(EvalConstIntBound(ir::Sub(u, IntImm(DataType::UInt(8), 1)), vars).ToString(),
            "[0, 255]");
  EXPECT_EQ(EvalConstIntBound(ir::Mul(b, IntImm(DataType::Int(8), 12)), vars).ToString(),
            "[-120, 120]");
  EXPECT_EQ(EvalConstIntBound(ir::Mul(b, IntImm(DataType::Int(8), 13)), vars).ToString(),
            "[-128, 127]");
}

TEST_F(ConstIntBoundTest, Division) {
  EXPECT_EQ(B(ir::FloorDiv(ir::Add(ir::Mul(i, 4), j), 4)), "[0, 15]");
  EXPECT_EQ(B(ir::FloorDiv(s, 3)), "[-3, 2]");
  EXPECT_EQ(B(ir::Div(s, 3)), "[-2, 2]");
  EXPECT_EQ(B(ir::FloorDiv(s, -3)), "[-3, 2]");
  EXPECT_EQ(B(ir::FloorDiv(i, n)), "[0, 15]");
  EXPECT_EQ(B(ir::FloorDiv(i, d)), "[-8, 0]");
  EXPECT_EQ(B(ir::FloorMod(s, 3)), "[0, 2]");
  EXPECT_EQ(B(ir::FloorMod(s, -3)), "[-2, 0]");
  EXPECT_EQ(B(ir::FloorMod(j, 8)), "[0, 3]");              // already below the divisor
  EXPECT_EQ(B(ir::FloorMod(ir::Add(j, 8), 8)), "[0, 3]");  // one block of 8
  EXPECT_EQ(B(ir::FloorMod(i, n)), "[0, 15]");
  EXPECT_EQ(B(ir::FloorMod(i, d)), "[-3, 0]");
  EXPECT_EQ(B(ir::Mod(s, 3)), "[-2, 2]");
  EXPECT_EQ(B(ir::Mod(s, d)), "[-3, 3]");
  EXPECT_EQ(B(ir::Mod(i, 4)), "[0, 3]");
  // A divisor that may be zero still bounds the quotient by the other values.
  EXPECT_EQ(B(ir::FloorDiv(i, s)), "[-15, 15]");
}

TEST_F(ConstIntBoundTest, MinMaxSelectCast) {
  EXPECT_EQ(B(ir::Min(i, s)), "[-8, 8]");
  EXPECT_EQ(B(ir::Max(i, s)), "[0, 15]");
  EXPECT_EQ(B(ir::Select(ir::LT(i, j), i, n)), "[0, 64]");
  EXPECT_EQ(B(ir::Select(ir::LT(i, 16), i, n)), "[0, 15]");  // condition decided by the bounds
  EXPECT_EQ(B(ir::Cast(ir::kInt64, s)), "[-8, 8]");
  EXPECT_EQ(B(ir::Cast(DataType::UInt(8), s)), "[0, 255]");  // negative values wrap
  EXPECT_EQ(B(ir::Cast(DataType::UInt(8), i)), "[0, 15]");
  EXPECT_EQ(B(ir::Cast(ir::kInt32, ir::LT(i, j))), "[0, 1]");
  EXPECT_EQ(B(ir::Cast(ir::kInt32, Var("f", ir::kFloat32))), "[-2147483648, 2147483647]");
}

TEST_F(ConstIntBoundTest, BoolExpressions) {
  EXPECT_EQ(B(ir::LT(i, 16)), "[1, 1]");
  EXPECT_EQ(B(ir::LT(i, 15)), "[0, 1]");
  EXPECT_EQ(B(ir::GE(d, 0)), "[0, 0]");
  EXPECT_EQ(B(ir::EQ(d, i)), "[0, 0]");
  EXPECT_EQ(B(ir::NE(d, i)), "[1, 1]");
  EXPECT_EQ(B(ir::And(ir::LT(i, 16), ir::LT(i, j))), "[0, 1]");
  EXPECT_EQ(B(ir::Or(ir::LT(i, 16), ir::LT(i, j))), "[1, 1]");
  EXPECT_EQ(B(ir::Not(ir::LT(i, 16))), "[0, 0]");
}

TEST_F(ConstIntBoundTest, LetRampBroadcastCalls) {
  Var v("v");
  EXPECT_EQ(B(ir::Let(v, ir::Mul(i, 2), ir::Add(v, 1))), "[1, 31]");
  // Per-lane union: lanes i*4, i*4 + 1, i*4 + 2, i*4 + 3.
  EXPECT_EQ(B(ir::Ramp(ir::Mul(i, 4), 1, 4)), "[0, 63]");
  EXPECT_EQ(B(ir::Ramp(j, -2, 3)), "[-4, 3]");
  EXPECT_EQ(B(ir::Broadcast(j, 8)), "[0, 3]");
  EXPECT_EQ(B(ir::if_then_else(ir::LT(i, j), j, n)), "[0, 64]");
  EXPECT_EQ(B(ir::likely(ir::LT(i, 16))), "[1, 1]");
  EXPECT_EQ(B(ir::bitwise_and(free, 7)), "[0, 7]");
  EXPECT_EQ(B(ir::shift_right(i, 2)), "[0, 3]");
  EXPECT_EQ(B(ir::shift_left(j, 3)), "[0, 24]");
  EXPECT_EQ(B(ir::popcount(free)), "[0, 32]");
}

TEST_F(ConstIntBoundTest, ExpandedSumsKeepSoundBounds) {
  // z*z - z*K overflows int64 in its parts; the bound must not claim anything.
  Var z("z", ir::kInt64);
  ConstIntBoundMap vars{{z.get(), {312001521658, 312001521658}}};
  const Expr k = IntImm(ir::kInt64, 312001521660);
  EXPECT_EQ(EvalConstIntBound(ir::Sub(ir::Mul(z, z), ir::Mul(z, k)), vars).ToString(),
            "[-inf, +inf]");
  // An int32 interval wholly outside the type says nothing rather than a clipped point.
  Var w("w");
  ConstIntBoundMap wide{{w.get(), {100000, 100000}}};
  EXPECT_EQ(EvalConstIntBound(ir::FloorMod(ir::Mul(w, w), 7), wide).ToString(), "[0, 6]");
  EXPECT_EQ(EvalConstIntBound(ir::Mul(w, w), wide).ToString(), "[-2147483648, 2147483647]");
}

TEST(ConstIntBoundStructTest, Helpers) {
  EXPECT_TRUE(ConstIntBound::Point(3).IsPoint());
  EXPECT_FALSE(ConstIntBound::Point(kInf).IsPoint());
  EXPECT_TRUE(ConstIntBound::Everything().Contains(kNegInf));
  EXPECT_EQ(ConstIntBound::OfType(DataType::Int(16)).ToString(), "[-32768, 32767]");
  EXPECT_EQ((ConstIntBound{kNegInf, 5}).ToString(), "[-inf, 5]");
}

}  // namespace
}  // namespace tessel::arith
