// The IR core: data types, operator type matching and folding, printing, mutation.
#include <gtest/gtest.h>

#include <limits>

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::ir {
namespace {

TEST(DataTypeTest, ParseAndPrintRoundTrip) {
  for (const char* text : {"float16", "float32", "float64", "int8", "int16", "int32", "int64",
                           "uint1", "uint8", "uint32", "bool", "float32x8", "int8x16", "handle"}) {
    absl::StatusOr<DataType> t = DataType::Parse(text);
    ASSERT_TRUE(t.ok()) << text << ": " << t.status();
    EXPECT_EQ(t->ToString(), text);
  }
  EXPECT_EQ(DataType::Parse("float32x4")->lanes(), 4);
  EXPECT_EQ(DataType::Parse("uint1")->bytes(), 1);
}

TEST(DataTypeTest, ParseRefusesUnknownTypesByName) {
  for (const char* text : {"float8", "int3", "complex64", "int32x0", "", "x4"}) {
    absl::StatusOr<DataType> t = DataType::Parse(text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_NE(std::string(t.status().message()).find(std::string("'") + text + "'"),
              std::string::npos)
        << t.status();
  }
}

TEST(OpTest, ImmediatesFoldWithWrap) {
  EXPECT_EQ(ToString(Expr(3) + 4), "7");
  EXPECT_EQ(ToString(IntImm(DataType::Int(8), 127) + IntImm(DataType::Int(8), 1)), "-128i8");
  EXPECT_EQ(ToString(IntImm(DataType::UInt(8), 250) + 10), "4u8");
  EXPECT_EQ(ToString(Expr(-7) / 2), "-4");  // floor division
  EXPECT_EQ(ToString(Expr(-7) % 2), "1");
  EXPECT_EQ(ToString(truncdiv(-7, 2)), "-3");
  EXPECT_EQ(ToString(truncmod(-7, 2)), "-1");
  EXPECT_EQ(ToString(Expr(1.5f) * 2.0f), "3.0f");
  EXPECT_EQ(ToString(Expr(3) < 4), "true");
}

TEST(OpTest, FoldingNeverOverflowsInt64) {
  const Expr big = IntImm(DataType::UInt(32), 4294967295);
  EXPECT_EQ(ToString(big * big), "1u32");  // (2^32 - 1)^2 mod 2^32
  const Expr min64 = IntImm(kInt64, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(truncdiv(min64, IntImm(kInt64, -1)).as<IntImmNode>(), nullptr);  // left unfolded
  const Expr top = IntImm(DataType::UInt(64), -1);                           // 2^64 - 1
  EXPECT_EQ(ToString(top > IntImm(DataType::UInt(64), 1)), "true");
  EXPECT_EQ(ToString(max(top, IntImm(DataType::UInt(64), 1))), "-1u64");
}

TEST(OpTest, OperandsMatchTypes) {
  Var i("i"), x("x", kFloat32);
  Var big("n", kInt64);
  EXPECT_EQ((x + i).dtype(), kFloat32);  // int meets float as float
  EXPECT_EQ(ToString(x + i), "(x + float32(i))");
  EXPECT_EQ((i + big).dtype(), kInt64);        // narrower integer widens
  EXPECT_EQ(ToString(big + 1), "(n + 1i64)");  // an immediate takes the other type
  Var v("v", DataType::Float(32, 4));
  EXPECT_EQ(ToString(v * 2.0f), "(v * broadcast(2.0f, 4))");  // scalar meets vector
  EXPECT_EQ((i < 3).dtype(), kBool);
  EXPECT_EQ(ToString(i + 0), "i");
  EXPECT_EQ(ToString(i * 0), "0");
}

TEST(PrinterTest, DistinctVariablesWithOneNamePrintDistinctly) {
  Var a("i"), b("i");
  EXPECT_EQ(ToString(a + b), "(i + i_1)");
  EXPECT_EQ(ToString(a + a), "(i + i)");
}

TEST(PrinterTest, LoopNest) {
  Buffer A = Buffer::Declare("A", {16, 8}, kFloat32);
  Var i("i"), j("j");
  Stmt body = For(i, 0, 16, ForKind::kParallel,
                  For(j, 0, 8, ForKind::kVectorized,
                      BufferStore(A, BufferLoad(A, {i, j}) * 2.0f + exp(Expr(1.0f)), {i, j})));
  PrimFunc f("scale", {A->data}, {A}, body);
  EXPECT_EQ(ToString(f),
            "func scale(A: float32[16, 8]) {\n"
            "  for (i, 0, 16) parallel {\n"
            "    for (j, 0, 8) vectorized {\n"
            "      A[i, j] = ((A[i, j] * 2.0f) + exp(1.0f))\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(MutatorTest, UnchangedSubtreesStayShared) {
  Var i("i"), j("j");
  Expr left = i * 4;
  Expr e = left + j;
  Expr same = Substitute(e, {{Var("k").get(), Expr(1)}});
  EXPECT_TRUE(same.same_as(e));
  Expr changed = Substitute(e, {{j.get(), Expr(3)}});
  EXPECT_EQ(ToString(changed), "((i * 4) + 3)");
  EXPECT_TRUE(changed.as<AddNode>()->a.same_as(left));
}

// A view of a tile (as tensorize binds an intrinsic's buffer) has its offset in loop variables;
// substituting them reaches the offset, strides and shape, keeping the data variable.
TEST(MutatorTest, SubstituteReachesABufferViewsOffset) {
  Buffer whole = Buffer::Declare("W", {64}, kInt32);
  Var i("i"), fresh("i.init"), s("s");
  auto node = MakeRef<BufferNode>();
  node->data = whole->data;
  node->dtype = kInt32;
  node->shape = {4};
  node->strides = {s};
  node->elem_offset = i * 16;
  node->name = "W";
  node->scope = "global";
  node->alignment = 1;
  Buffer view(std::move(node));
  Stmt store = BufferStore(view, BufferLoad(view, {1}), {0});
  Stmt renamed = Substitute(store, {{i.get(), fresh}, {s.get(), Expr(2)}});
  const auto* st = renamed.as<BufferStoreNode>();
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(ToString(st->buffer->elem_offset), "(i.init * 16)");
  EXPECT_EQ(ToString(st->buffer->strides[0]), "2");
  EXPECT_TRUE(st->buffer->data.same_as(whole->data));
  const auto* load = st->value.as<BufferLoadNode>();
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(ToString(load->buffer->elem_offset), "(i.init * 16)");
  // Without a variable of the map in it, the buffer is the same node.
  Stmt same = Substitute(store, {{Var("k").get(), Expr(1)}});
  EXPECT_TRUE(same.same_as(store));
}

TEST(OpTest, SeqStmtFlattens) {
  Buffer A = Buffer::Declare("A", {4}, kInt32);
  Stmt s1 = BufferStore(A, 1, {0}), s2 = BufferStore(A, 2, {1}), s3 = BufferStore(A, 3, {2});
  Stmt seq = SeqStmt({SeqStmt({s1, s2}), Stmt(), s3});
  ASSERT_NE(seq.as<SeqStmtNode>(), nullptr);
  EXPECT_EQ(seq.as<SeqStmtNode>()->seq.size(), 3u);
  EXPECT_TRUE(SeqStmt({s1}).same_as(s1));
}

}  // namespace
}  // namespace tessel::ir
