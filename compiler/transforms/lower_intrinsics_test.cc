// LowerIntrinsics: printed IR before/after, well-formedness, and the interpreter's results before
// (which implements sigmoid, round, floordiv and floormod itself) and after.
#include "compiler/transforms/lower_intrinsics.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/transforms/test_util.h"

namespace tessel::transforms {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand
using testing::MakeFunc;
using testing::SameOutputs;
using testing::Text;
using testing::WellFormed;

PrimFunc LowerChecked(const PrimFunc& f, double tolerance = 0) {
  PrimFunc out = f.WithBody(LowerIntrinsics(f->body));
  EXPECT_TRUE(WellFormed(out));
  for (uint32_t seed = 0; seed < 4; ++seed) EXPECT_TRUE(SameOutputs(f, out, seed, {}, tolerance));
  return out;
}

TEST(LowerIntrinsicsTest, SigmoidAndLikely) {
  Buffer a = Buffer::Declare("A", {8}, kFloat32);
  Buffer c = Buffer::Declare("C", {8}, kFloat32);
  Var i("i");
  Stmt body = For(i, 0, 8, ForKind::kSerial,
                  IfThenElse(likely(i < 7), BufferStore(c, sigmoid(BufferLoad(a, {i})), {i})));
  PrimFunc out = LowerChecked(MakeFunc("f", {a, c}, {}, body), 1e-6);
  EXPECT_EQ(Text(out),
            "for (i, 0, 8) {\n"
            "  if ((i < 7)) {\n"
            "    C[i] = (1.0f / (1.0f + exp((0.0f - A[i]))))\n"
            "  }\n"
            "}\n");
}

TEST(LowerIntrinsicsTest, RoundIsHalfAwayFromZero) {
  Buffer a = Buffer::Declare("A", {16}, kFloat32);
  Buffer c = Buffer::Declare("C", {16}, kFloat32);
  Var i("i");
  // floor(x * 4) * 0.5 is a multiple of 0.5: halfway cases of both signs.
  Expr x = BufferLoad(a, {i});
  Stmt body = For(
      i, 0, 16, ForKind::kSerial,
      SeqStmt({BufferStore(c, round(x), {i}), BufferStore(a, round(floor(x * 4.0f) * 0.5f), {i})}));
  PrimFunc out = LowerChecked(MakeFunc("f", {a, c}, {}, body));
  EXPECT_NE(Text(out).find("C[i] = (let x = A[i] in (let f = floor(x) in (let d = (x - f) in "
                           "select(((d > 0.5f) || ((d == 0.5f) && (x >= 0.0f))), (f + 1.0f), "
                           "f))))"),
            std::string::npos)
      << Text(out);
  EXPECT_EQ(Text(out).find("round("), std::string::npos);
}

TEST(LowerIntrinsicsTest, FloorDivisionOfANonNegativeValueTruncates) {
  Buffer c = Buffer::Declare("C", {12}, kInt32);
  Var i("i");
  Stmt body =
      For(i, 0, 12, ForKind::kSerial, BufferStore(c, floordiv(i * 5 + 2, 3) + floormod(i, 4), {i}));
  PrimFunc out = LowerChecked(MakeFunc("f", {c}, {}, body));
  EXPECT_EQ(Text(out),
            "for (i, 0, 12) {\n"
            "  C[i] = (truncdiv(((i * 5) + 2), 3) + truncmod(i, 4))\n"
            "}\n");
}

TEST(LowerIntrinsicsTest, FloorDivisionOfAnyValueFixesTheSign) {
  Buffer c = Buffer::Declare("C", {4, 24}, kInt32);
  Var i("i");
  Expr x = i - 12;  // -12 .. 11
  Stmt body = For(
      i, 0, 24, ForKind::kSerial,
      SeqStmt({BufferStore(c, floordiv(x, 5), {0, i}), BufferStore(c, floormod(x, 5), {1, i}),
               BufferStore(c, floordiv(x, -5), {2, i}), BufferStore(c, floormod(x, -5), {3, i})}));
  PrimFunc out = LowerChecked(MakeFunc("f", {c}, {}, body));
  EXPECT_EQ(Text(out),
            "for (i, 0, 24) {\n"
            "  C[0, i] = (let a = (i - 12) in (let r = truncmod(a, 5) in (let q = truncdiv(a, 5) "
            "in select((r < 0), (q - 1), q))))\n"
            "  C[1, i] = (let a_1 = (i - 12) in (let r_1 = truncmod(a_1, 5) in select((r_1 < 0), "
            "(r_1 + 5), r_1)))\n"
            "  C[2, i] = (let a_2 = (i - 12) in (let r_2 = truncmod(a_2, -5) in (let q_1 = "
            "truncdiv(a_2, -5) in select((r_2 > 0), (q_1 - 1), q_1))))\n"
            "  C[3, i] = (let a_3 = (i - 12) in (let r_3 = truncmod(a_3, -5) in select((r_3 > 0), "
            "(r_3 + -5), r_3)))\n"
            "}\n");
}

TEST(LowerIntrinsicsTest, VectorAndNarrowDivisionsAreLowered) {
  Buffer a = Buffer::Declare("A", {8}, DataType::Int(8));
  Buffer c = Buffer::Declare("C", {2, 8}, DataType::Int(8));
  Buffer u = Buffer::Declare("U", {8}, DataType::UInt(8));
  Expr lanes = Ramp(0, 1, 8);
  Expr v = BufferLoad(a, {lanes});
  Stmt body = SeqStmt(
      {BufferStore(c, floordiv(v, Broadcast(IntImm(DataType::Int(8), 3), 8)), {0, lanes}),
       BufferStore(c, floormod(v + v, Broadcast(IntImm(DataType::Int(8), 7), 8)), {1, lanes}),
       BufferStore(u, floordiv(BufferLoad(u, {lanes}), Broadcast(IntImm(DataType::UInt(8), 3), 8)),
                   {lanes})});
  PrimFunc out = LowerChecked(MakeFunc("f", {a, c, u}, {}, body));
  const std::string text = Text(out);
  EXPECT_EQ(text.find("floordiv"), std::string::npos) << text;
  EXPECT_EQ(text.find("floormod"), std::string::npos) << text;
  EXPECT_NE(text.find("U[ramp(0, 1, 8)] = truncdiv(U[ramp(0, 1, 8)], broadcast(3u8, 8))"),
            std::string::npos)
      << text;
}

TEST(LowerIntrinsicsTest, NonConstantDivisorsStay) {
  Buffer c = Buffer::Declare("C", {4}, kInt32);
  Var i("i"), d("d");
  Stmt body = For(i, 0, 4, ForKind::kSerial, BufferStore(c, floordiv(i, d), {i}));
  EXPECT_TRUE(LowerIntrinsics(body).same_as(body));
}

}  // namespace
}  // namespace tessel::transforms
