// Vectorize: printed IR before/after, well-formedness, the interpreter's results before and after
// on random inputs, and the error for a non-constant extent.
#include "compiler/transforms/vectorize.h"

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

// Runs the pass on f's body; the result must be well formed and compute what f computes.
PrimFunc VectorizeChecked(const PrimFunc& f, const std::vector<int64_t>& scalars = {}) {
  absl::StatusOr<Stmt> body = Vectorize(f->body);
  EXPECT_TRUE(body.ok()) << body.status();
  if (!body.ok()) return f;
  PrimFunc out = f.WithBody(*body);
  EXPECT_TRUE(WellFormed(out));
  for (uint32_t seed = 0; seed < 3; ++seed) EXPECT_TRUE(SameOutputs(f, out, seed, scalars));
  return out;
}

TEST(VectorizeTest, LoopVariableBecomesARampAndScalarsBroadcast) {
  Buffer a = Buffer::Declare("A", {16}, kFloat32);
  Buffer b = Buffer::Declare("B", {16}, kFloat32);
  Buffer c = Buffer::Declare("C", {16}, kFloat32);
  Var o("o"), i("i");
  Expr idx = o * 4 + i;
  Stmt body = For(o, 0, 4, ForKind::kSerial,
                  For(i, 0, 4, ForKind::kVectorized,
                      BufferStore(c, BufferLoad(a, {idx}) + BufferLoad(b, {idx}) * 2.0f, {idx})));
  PrimFunc out = VectorizeChecked(MakeFunc("f", {a, b, c}, {}, body));
  EXPECT_EQ(Text(out),
            "for (o, 0, 4) {\n"
            "  C[ramp((o * 4), 1, 4)] = (A[ramp((o * 4), 1, 4)] + (B[ramp((o * 4), 1, 4)] * "
            "broadcast(2.0f, 4)))\n"
            "}\n");
}

TEST(VectorizeTest, SelectComparisonsAndCastsAreLaneWise) {
  Buffer a = Buffer::Declare("A", {8}, kInt32);
  Buffer c = Buffer::Declare("C", {8}, kFloat32);
  Var i("i"), n("n");
  Expr x = BufferLoad(a, {i});
  Stmt body = For(i, 0, 8, ForKind::kVectorized,
                  BufferStore(c, cast(kFloat32, select(x > n && i < 6, x, i * 2 - 3)), {i}));
  PrimFunc out = VectorizeChecked(MakeFunc("f", {a, c}, {n}, body), {3});
  EXPECT_EQ(Text(out),
            "C[ramp(0, 1, 8)] = float32x8(select(((A[ramp(0, 1, 8)] > broadcast(n, 8)) && "
            "(ramp(0, 1, 8) < broadcast(6, 8))), A[ramp(0, 1, 8)], ramp(-3, 2, 8)))\n");
  for (int64_t nv : {-5, 0, 40}) {
    PrimFunc f = MakeFunc("f", {a, c}, {n}, body);
    EXPECT_TRUE(SameOutputs(f, out, 7, {nv}));
  }
}

TEST(VectorizeTest, StoreToAFixedAddressIsScalarizedBesideVectorCode) {
  // S[0] = A[0] + 1 stores to one address in every iteration: it stays a serial loop, while
  // C[i] = A[i] * A[i] becomes one vector store.
  Buffer a = Buffer::Declare("A", {4}, kInt32);
  Buffer c = Buffer::Declare("C", {4}, kInt32);
  Buffer s = Buffer::Declare("S", {1}, kInt32);
  Var i("i");
  Stmt body = For(i, 0, 4, ForKind::kVectorized,
                  SeqStmt({BufferStore(s, BufferLoad(a, {0}) + 1, {0}),
                           BufferStore(c, BufferLoad(a, {i}) * BufferLoad(a, {i}), {i}),
                           BufferStore(s, BufferLoad(a, {0}) - 1, {0})}));
  PrimFunc out = VectorizeChecked(MakeFunc("f", {a, c, s}, {}, body));
  EXPECT_EQ(Text(out),
            "for (i, 0, 4) {\n"
            "  S[0] = (A[0] + 1)\n"
            "}\n"
            "C[ramp(0, 1, 4)] = (A[ramp(0, 1, 4)] * A[ramp(0, 1, 4)])\n"
            "for (i_1, 0, 4) {\n"
            "  S[0] = (A[0] - 1)\n"
            "}\n");
}

TEST(VectorizeTest, InnerLoopWithLaneDependentExtentIsScalarized) {
  // for i vectorized: C[i] = 0; for k in [0, i): C[i] += A[k]   (a triangular prefix sum)
  Buffer a = Buffer::Declare("A", {4}, kInt32);
  Buffer c = Buffer::Declare("C", {4}, kInt32);
  Var i("i"), k("k");
  Stmt body = For(i, 0, 4, ForKind::kVectorized,
                  SeqStmt({BufferStore(c, Expr(0), {i}),
                           For(k, 0, i, ForKind::kSerial,
                               BufferStore(c, BufferLoad(c, {i}) + BufferLoad(a, {k}), {i}))}));
  PrimFunc out = VectorizeChecked(MakeFunc("f", {a, c}, {}, body));
  EXPECT_EQ(Text(out),
            "C[ramp(0, 1, 4)] = broadcast(0, 4)\n"
            "for (i, 0, 4) {\n"
            "  for (k, 0, i) {\n"
            "    C[i] = (C[i] + A[k])\n"
            "  }\n"
            "}\n");
}

TEST(VectorizeTest, InnerLoopWithInvariantBoundsKeepsVectorBody) {
  // for i vectorized: for k in [0, 3): C[i] += A[k * 4 + i]
  Buffer a = Buffer::Declare("A", {12}, kFloat32);
  Buffer c = Buffer::Declare("C", {4}, kFloat32);
  Var i("i"), k("k");
  Stmt body = For(i, 0, 4, ForKind::kVectorized,
                  For(k, 0, 3, ForKind::kSerial,
                      BufferStore(c, BufferLoad(c, {i}) + BufferLoad(a, {k * 4 + i}), {i})));
  PrimFunc out = VectorizeChecked(MakeFunc("f", {a, c}, {}, body));
  EXPECT_EQ(Text(out),
            "for (k, 0, 3) {\n"
            "  C[ramp(0, 1, 4)] = (C[ramp(0, 1, 4)] + A[ramp((k * 4), 1, 4)])\n"
            "}\n");
}

TEST(VectorizeTest, IfOnALaneIsScalarizedAndIfOnAnInvariantIsNot) {
  Buffer a = Buffer::Declare("A", {8}, kInt32);
  Buffer c = Buffer::Declare("C", {8}, kInt32);
  Var i("i"), n("n");
  Stmt body = For(i, 0, 8, ForKind::kVectorized,
                  SeqStmt({IfThenElse(BufferLoad(a, {i}) > 0, BufferStore(c, Expr(1), {i})),
                           IfThenElse(n > 2, BufferStore(a, BufferLoad(a, {i}) + n, {i}))}));
  PrimFunc f = MakeFunc("f", {a, c}, {n}, body);
  absl::StatusOr<Stmt> vec = Vectorize(body);
  ASSERT_TRUE(vec.ok()) << vec.status();
  PrimFunc out = f.WithBody(*vec);
  EXPECT_EQ(Text(out),
            "for (i, 0, 8) {\n"
            "  if ((A[i] > 0)) {\n"
            "    C[i] = 1\n"
            "  }\n"
            "}\n"
            "if ((n > 2)) {\n"
            "  A[ramp(0, 1, 8)] = (A[ramp(0, 1, 8)] + broadcast(n, 8))\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  for (int64_t nv : {1, 3}) EXPECT_TRUE(SameOutputs(f, out, 11, {nv}));
}

TEST(VectorizeTest, ImpureCallsVectorLetsAndAllocationsAreScalarized) {
  Buffer a = Buffer::Declare("A", {4}, kInt32);
  Buffer t = Buffer::Declare("T", {2}, kInt32);
  Var i("i"), x("x"), y("y");
  Stmt body = For(
      i, 0, 4, ForKind::kVectorized,
      SeqStmt(
          {Evaluate(Call(kInt32, Intrinsic::kStorageSync, {StringImm("shared")})),
           LetStmt(x, BufferLoad(a, {i}) * 2, BufferStore(a, x + 1, {i})),
           Allocate(t, SeqStmt({BufferStore(t, i, {0}), BufferStore(a, BufferLoad(t, {0}), {i})})),
           BufferStore(a, Let(y, i + 1, y * y), {i})}));
  PrimFunc f = MakeFunc("f", {a}, {}, body);
  absl::StatusOr<Stmt> vec = Vectorize(body);
  ASSERT_TRUE(vec.ok()) << vec.status();
  PrimFunc out = f.WithBody(*vec);
  EXPECT_EQ(Text(out),
            "for (i, 0, 4) {\n"
            "  storage_sync(\"shared\")\n"
            "}\n"
            "for (i_1, 0, 4) {\n"
            "  let x = (A[i_1] * 2)\n"
            "  A[i_1] = (x + 1)\n"
            "}\n"
            "for (i_2, 0, 4) {\n"
            "  allocate T: int32[2] {\n"
            "    T[0] = i_2\n"
            "    A[i_2] = T[0]\n"
            "  }\n"
            "}\n"
            "for (i_3, 0, 4) {\n"
            "  A[i_3] = (let y = (i_3 + 1) in (y * y))\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  EXPECT_TRUE(SameOutputs(f, out, 5));
}

TEST(VectorizeTest, IfThenElseIntrinsicWithVectorConditionIsScalarized) {
  // A guarded load must not read the lanes whose guard is false.
  Buffer a = Buffer::Declare("A", {6}, kFloat32);
  Buffer c = Buffer::Declare("C", {8}, kFloat32);
  Var i("i");
  Stmt body = For(i, 0, 8, ForKind::kVectorized,
                  BufferStore(c, if_then_else(i < 6, BufferLoad(a, {i}), 0.0f), {i}));
  PrimFunc out = VectorizeChecked(MakeFunc("f", {a, c}, {}, body));
  EXPECT_EQ(Text(out),
            "for (i, 0, 8) {\n"
            "  C[i] = if_then_else((i < 6), A[i], 0.0f)\n"
            "}\n");
}

TEST(VectorizeTest, NestedVectorizedLoopsVectorizeTheInnerOnly) {
  Buffer a = Buffer::Declare("A", {2, 4}, kInt32);
  Var i("i"), j("j");
  Stmt body = For(i, 0, 2, ForKind::kVectorized,
                  For(j, 0, 4, ForKind::kVectorized, BufferStore(a, i * 10 + j, {i, j})));
  PrimFunc out = VectorizeChecked(MakeFunc("f", {a}, {}, body));
  EXPECT_EQ(Text(out),
            "for (i, 0, 2) {\n"
            "  A[i, ramp(0, 1, 4)] = ramp((i * 10), 1, 4)\n"
            "}\n");
}

TEST(VectorizeTest, NonConstantExtentIsAnErrorNamingTheLoop) {
  Buffer a = Buffer::Declare("A", {16}, kInt32);
  Var lane("lane"), n("n");
  Stmt body = For(lane, 0, n, ForKind::kVectorized, BufferStore(a, Expr(0), {lane}));
  absl::StatusOr<Stmt> result = Vectorize(body);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "vectorized loop 'lane' has non-constant extent n");
}

TEST(VectorizeTest, ExtentOneSubstitutesTheMin) {
  Buffer a = Buffer::Declare("A", {4}, kInt32);
  Var i("i");
  Stmt body = For(i, 3, 1, ForKind::kVectorized, BufferStore(a, i, {i}));
  PrimFunc out = VectorizeChecked(MakeFunc("f", {a}, {}, body));
  EXPECT_EQ(Text(out), "A[3] = 3\n");
}

}  // namespace
}  // namespace tessel::transforms
