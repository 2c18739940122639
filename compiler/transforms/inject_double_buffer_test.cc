// InjectDoubleBuffer: printed IR before/after, well-formedness, the interpreter's results before
// and after, and inputs outside the supported pattern left unchanged.
#include "compiler/transforms/inject_double_buffer.h"

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

Stmt DoubleBufferScope(const Buffer& b, Stmt body) {
  return AttrStmt(Ref<const Object>(b->data.get()), attr::kDoubleBufferScope, 1, std::move(body));
}

// for k: fill S from A's k-th tile; accumulate S into C.
struct Tiled {
  Buffer a = Buffer::Declare("A", {12}, kFloat32);
  Buffer c = Buffer::Declare("C", {4}, kFloat32);
  Buffer s = Buffer::Declare("S", {4}, kFloat32, "shared");
  Var k{"k"}, x{"x"}, y{"y"};

  Stmt Fill() const {
    return For(x, 0, 4, ForKind::kSerial, BufferStore(s, BufferLoad(a, {k * 4 + x}), {x}));
  }
  Stmt Use() const {
    return For(y, 0, 4, ForKind::kSerial,
               BufferStore(c, BufferLoad(c, {y}) + BufferLoad(s, {y}) * 2.0f, {y}));
  }
};

TEST(InjectDoubleBufferTest, FillForTheNextIterationAlternatesCopiesAndIsPrefetched) {
  Tiled t;
  Stmt body = DoubleBufferScope(
      t.s, Allocate(t.s, For(t.k, 0, 3, ForKind::kSerial, SeqStmt({t.Fill(), t.Use()}))));
  PrimFunc f = MakeFunc("f", {t.a, t.c}, {}, body);
  PrimFunc out = f.WithBody(InjectDoubleBuffer(body));
  EXPECT_EQ(Text(out),
            "allocate S: float32[8] scope \"shared\" {\n"
            "  for (x, 0, 4) {\n"
            "    S[x] = A[((0 * 4) + x)]\n"
            "  }\n"
            "  for (k, 0, 3) {\n"
            "    if (((k + 1) < 3)) {\n"
            "      for (x_1, 0, 4) {\n"
            "        S[(x_1 + (floormod((k + 1), 2) * 4))] = A[(((k + 1) * 4) + x_1)]\n"
            "      }\n"
            "    }\n"
            "    for (y, 0, 4) {\n"
            "      C[y] = (C[y] + (S[(y + (floormod(k, 2) * 4))] * 2.0f))\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  for (uint32_t seed = 0; seed < 3; ++seed) EXPECT_TRUE(SameOutputs(f, out, seed));
}

TEST(InjectDoubleBufferTest, SymbolicExtentAndNonZeroMinGuardThePrefetch) {
  // The loop sits inside another loop and a let; it runs k = 1 .. n (possibly not at all).
  Tiled t;
  Var n("n"), o("o"), twice("twice");
  Stmt loop = For(t.k, 1, n, ForKind::kSerial, SeqStmt({t.Fill(), t.Use()}));
  Stmt body = DoubleBufferScope(
      t.s, Allocate(t.s, For(o, 0, 2, ForKind::kSerial, LetStmt(twice, o * 2, loop))));
  PrimFunc f = MakeFunc("f", {t.a, t.c}, {n}, body);
  PrimFunc out = f.WithBody(InjectDoubleBuffer(body));
  EXPECT_EQ(Text(out),
            "allocate S: float32[8] scope \"shared\" {\n"
            "  for (o, 0, 2) {\n"
            "    let twice = (o * 2)\n"
            "    if ((n > 0)) {\n"
            "      for (x, 0, 4) {\n"
            "        S[x] = A[((1 * 4) + x)]\n"
            "      }\n"
            "    }\n"
            "    for (k, 1, n) {\n"
            "      if (((k + 1) < (1 + n))) {\n"
            "        for (x_1, 0, 4) {\n"
            "          S[(x_1 + (floormod(((k + 1) - 1), 2) * 4))] = A[(((k + 1) * 4) + x_1)]\n"
            "        }\n"
            "      }\n"
            "      for (y, 0, 4) {\n"
            "        C[y] = (C[y] + (S[(y + (floormod((k - 1), 2) * 4))] * 2.0f))\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  for (int64_t nv : {0, 1, 2}) EXPECT_TRUE(SameOutputs(f, out, 4, {nv}));
}

TEST(InjectDoubleBufferTest, InputsOutsideThePatternAreLeftUnchanged) {
  Tiled t;
  // 1. The reads write A, which the fill reads: the fill may not move one iteration early.
  Stmt clobber = BufferStore(t.a, BufferLoad(t.s, {0}), {t.k * 4});
  // 2. S is read after the loop too.
  Stmt after = BufferStore(t.c, BufferLoad(t.s, {3}), {0});
  // 3. The loop body starts with the reads.
  std::vector<Stmt> inputs = {
      DoubleBufferScope(t.s, Allocate(t.s, For(t.k, 0, 3, ForKind::kSerial,
                                               SeqStmt({t.Fill(), t.Use(), clobber})))),
      DoubleBufferScope(
          t.s,
          Allocate(t.s, SeqStmt({For(t.k, 0, 3, ForKind::kSerial, SeqStmt({t.Fill(), t.Use()})),
                                 after}))),
      DoubleBufferScope(
          t.s, Allocate(t.s, For(t.k, 0, 3, ForKind::kSerial, SeqStmt({t.Use(), t.Fill()})))),
  };
  for (const Stmt& input : inputs) {
    Stmt out = InjectDoubleBuffer(input);
    EXPECT_TRUE(out.same_as(input)) << ToString(out);
  }
}

// What schedule lowering emits for two double-buffered compute_at stages attached at the
// reduction loop k: nested scopes at the top of the loop body, each realize holding its fill and
// the rest of the body.
TEST(InjectDoubleBufferTest, ScopesInsideTheLoopMoveOutAndAreDoubleBuffered) {
  Buffer a = Buffer::Declare("A", {12}, kFloat32);
  Buffer b = Buffer::Declare("B", {12}, kFloat32);
  Buffer c = Buffer::Declare("C", {4}, kFloat32);
  Buffer as = Buffer::Declare("As", {4}, kFloat32, "shared");
  Buffer bs = Buffer::Declare("Bs", {4}, kFloat32, "shared");
  Var k("k"), x("x"), y("y"), z("z");
  Stmt fill_a = For(x, 0, 4, ForKind::kSerial, BufferStore(as, BufferLoad(a, {k * 4 + x}), {x}));
  Stmt fill_b = For(y, 0, 4, ForKind::kSerial, BufferStore(bs, BufferLoad(b, {k * 4 + y}), {y}));
  Stmt use =
      For(z, 0, 4, ForKind::kSerial,
          BufferStore(c, BufferLoad(c, {z}) + BufferLoad(as, {z}) * BufferLoad(bs, {3 - z}), {z}));
  Stmt inner = DoubleBufferScope(as, Allocate(as, SeqStmt({fill_a, use})));
  Stmt outer = DoubleBufferScope(bs, Allocate(bs, SeqStmt({fill_b, inner})));
  Stmt body = For(k, 0, 3, ForKind::kSerial, outer);
  PrimFunc f = MakeFunc("f", {a, b, c}, {}, body);
  PrimFunc out = f.WithBody(InjectDoubleBuffer(body));
  EXPECT_EQ(Text(out),
            "allocate Bs: float32[8] scope \"shared\" {\n"
            "  allocate As: float32[8] scope \"shared\" {\n"
            "    for (x, 0, 4) {\n"
            "      As[x] = A[((0 * 4) + x)]\n"
            "    }\n"
            "    for (y, 0, 4) {\n"
            "      Bs[y] = B[((0 * 4) + y)]\n"
            "    }\n"
            "    for (k, 0, 3) {\n"
            "      if (((k + 1) < 3)) {\n"
            "        for (y_1, 0, 4) {\n"
            "          Bs[(y_1 + (floormod((k + 1), 2) * 4))] = B[(((k + 1) * 4) + y_1)]\n"
            "        }\n"
            "      }\n"
            "      if (((k + 1) < 3)) {\n"
            "        for (x_1, 0, 4) {\n"
            "          As[(x_1 + (floormod((k + 1), 2) * 4))] = A[(((k + 1) * 4) + x_1)]\n"
            "        }\n"
            "      }\n"
            "      for (z, 0, 4) {\n"
            "        C[z] = (C[z] + (As[(z + (floormod(k, 2) * 4))] * "
            "Bs[((3 - z) + (floormod(k, 2) * 4))]))\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  for (uint32_t seed = 0; seed < 3; ++seed) EXPECT_TRUE(SameOutputs(f, out, seed));
}

// The scope inside a plain Allocate of the loop's body (another stage's buffer computed at the
// same loop): the plain one moves out of the loop too.
TEST(InjectDoubleBufferTest, ScopeInsideAPlainAllocateOfTheLoopMovesOutWithIt) {
  Tiled t;
  Buffer p = Buffer::Declare("P", {4}, kFloat32, "local");
  Var w("w");
  Stmt fill_p = For(w, 0, 4, ForKind::kSerial, BufferStore(p, BufferLoad(t.a, {w}) * 3.0f, {w}));
  Stmt use =
      For(t.y, 0, 4, ForKind::kSerial,
          BufferStore(t.c, BufferLoad(t.c, {t.y}) + BufferLoad(t.s, {t.y}) * BufferLoad(p, {t.y}),
                      {t.y}));
  Stmt body = For(
      t.k, 0, 3, ForKind::kSerial,
      Allocate(p,
               SeqStmt({fill_p, DoubleBufferScope(t.s, Allocate(t.s, SeqStmt({t.Fill(), use})))})));
  PrimFunc f = MakeFunc("f", {t.a, t.c}, {}, body);
  PrimFunc out = f.WithBody(InjectDoubleBuffer(body));
  EXPECT_EQ(Text(out),
            "allocate P: float32[4] scope \"local\" {\n"
            "  allocate S: float32[8] scope \"shared\" {\n"
            "    for (x, 0, 4) {\n"
            "      S[x] = A[((0 * 4) + x)]\n"
            "    }\n"
            "    for (k, 0, 3) {\n"
            "      for (w, 0, 4) {\n"
            "        P[w] = (A[w] * 3.0f)\n"
            "      }\n"
            "      if (((k + 1) < 3)) {\n"
            "        for (x_1, 0, 4) {\n"
            "          S[(x_1 + (floormod((k + 1), 2) * 4))] = A[(((k + 1) * 4) + x_1)]\n"
            "        }\n"
            "      }\n"
            "      for (y, 0, 4) {\n"
            "        C[y] = (C[y] + (S[(y + (floormod(k, 2) * 4))] * P[y]))\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  for (uint32_t seed = 0; seed < 3; ++seed) EXPECT_TRUE(SameOutputs(f, out, seed));
}

// A plain Allocate holding no scope stays in the loop.
TEST(InjectDoubleBufferTest, APlainAllocateWithoutAScopeStaysInTheLoop) {
  Tiled t;
  Stmt body = For(t.k, 0, 3, ForKind::kSerial, Allocate(t.s, SeqStmt({t.Fill(), t.Use()})));
  EXPECT_TRUE(InjectDoubleBuffer(body).same_as(body));
}

TEST(InjectDoubleBufferTest, ScopeInsideALoopThatTheFillFeedsStaysInside) {
  // The fill reads A, which the loop body also writes: B is refused and stays in the loop.
  Tiled t;
  Stmt clobber = BufferStore(t.a, BufferLoad(t.s, {0}), {t.k * 4});
  Stmt body = For(t.k, 0, 3, ForKind::kSerial,
                  DoubleBufferScope(t.s, Allocate(t.s, SeqStmt({t.Fill(), t.Use(), clobber}))));
  EXPECT_TRUE(InjectDoubleBuffer(body).same_as(body));
}

}  // namespace
}  // namespace tessel::transforms
