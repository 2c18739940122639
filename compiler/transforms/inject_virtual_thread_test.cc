// InjectVirtualThread: printed IR before/after (the interleaving inside the innermost shared
// loop), well-formedness, the interpreter's results before and after (it runs vthread loops as
// serial loops), and the error for a non-constant thread count.
#include "compiler/transforms/inject_virtual_thread.h"

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

PrimFunc InjectChecked(const PrimFunc& f) {
  absl::StatusOr<Stmt> body = InjectVirtualThread(f->body);
  EXPECT_TRUE(body.ok()) << body.status();
  if (!body.ok()) return f;
  PrimFunc out = f.WithBody(*body);
  EXPECT_TRUE(WellFormed(out));
  for (uint32_t seed = 0; seed < 3; ++seed) EXPECT_TRUE(SameOutputs(f, out, seed));
  return out;
}

Stmt VThread(const Var& v, int n, Stmt body) {
  return For(v, 0, n, ForKind::kThreadBinding, std::move(body), "vthread");
}

// Two virtual threads, each loading a tile into its own local buffer and accumulating from it,
// over a shared reduction loop k: the pattern latency hiding needs.
TEST(InjectVirtualThreadTest, TwoThreadsInterleaveInsideTheSharedLoop) {
  Buffer a = Buffer::Declare("A", {16}, kFloat32);
  Buffer b = Buffer::Declare("B", {4}, kFloat32);
  Buffer c = Buffer::Declare("C", {2}, kFloat32);
  Buffer d = Buffer::Declare("D", {4}, kFloat32);
  Buffer l = Buffer::Declare("L", {2}, kFloat32, "local");
  Var vt("vt"), k("k");
  Stmt load = BufferStore(l, BufferLoad(a, {k * 4 + vt * 2}), {0});
  Stmt load2 = BufferStore(l, BufferLoad(a, {k * 4 + vt * 2 + 1}), {1});
  Stmt compute = BufferStore(
      c, BufferLoad(c, {vt}) + (BufferLoad(l, {0}) + BufferLoad(l, {1})) * BufferLoad(b, {k}),
      {vt});
  Stmt invariant = BufferStore(d, BufferLoad(b, {k}) * 2.0f, {k});
  Stmt body = VThread(
      vt, 2,
      Allocate(l, For(k, 0, 4, ForKind::kSerial, SeqStmt({load, load2, invariant, compute}))));
  PrimFunc out = InjectChecked(MakeFunc("f", {a, b, c, d}, {}, body));
  EXPECT_EQ(Text(out),
            "allocate L: float32[4] scope \"local\" {\n"
            "  for (k, 0, 4) {\n"
            "    L[0] = A[((k * 4) + (0 * 2))]\n"
            "    L[2] = A[((k * 4) + (1 * 2))]\n"
            "    L[1] = A[(((k * 4) + (0 * 2)) + 1)]\n"
            "    L[3] = A[(((k * 4) + (1 * 2)) + 1)]\n"
            "    D[k] = (B[k] * 2.0f)\n"
            "    C[0] = (C[0] + ((L[0] + L[1]) * B[k]))\n"
            "    C[1] = (C[1] + ((L[2] + L[3]) * B[k]))\n"
            "  }\n"
            "}\n");
}

TEST(InjectVirtualThreadTest, InnerLoopsTakeTheCopiesAndLetsSplitPerThread) {
  Buffer a = Buffer::Declare("A", {3, 8}, kInt32);
  Buffer c = Buffer::Declare("C", {3, 8}, kInt32);
  Var vt("vt"), i("i"), j("j"), base("base");
  Stmt body = VThread(
      vt, 2,
      For(i, 0, 3, ForKind::kSerial,
          LetStmt(base, vt * 4,
                  For(j, 0, 4, ForKind::kSerial,
                      BufferStore(c, BufferLoad(a, {i, base + j}) * 3 + vt, {i, base + j})))));
  PrimFunc out = InjectChecked(MakeFunc("f", {a, c}, {}, body));
  EXPECT_EQ(Text(out),
            "for (i, 0, 3) {\n"
            "  let base = (0 * 4)\n"
            "  let base_1 = (1 * 4)\n"
            "  for (j, 0, 4) {\n"
            "    C[i, (base + j)] = ((A[i, (base + j)] * 3) + 0)\n"
            "    C[i, (base_1 + j)] = ((A[i, (base_1 + j)] * 3) + 1)\n"
            "  }\n"
            "}\n");
}

TEST(InjectVirtualThreadTest, ThreadDependentLoopBoundsDuplicateTheLoop) {
  Buffer c = Buffer::Declare("C", {2, 4}, kInt32);
  Var vt("vt"), j("j");
  Stmt body =
      VThread(vt, 2, For(j, 0, vt + 2, ForKind::kSerial, BufferStore(c, vt * 10 + j, {vt, j})));
  PrimFunc out = InjectChecked(MakeFunc("f", {c}, {}, body));
  EXPECT_EQ(Text(out),
            "for (j, 0, (0 + 2)) {\n"
            "  C[0, j] = ((0 * 10) + j)\n"
            "}\n"
            "for (j_1, 0, (1 + 2)) {\n"
            "  C[1, j_1] = ((1 * 10) + j_1)\n"
            "}\n");
}

TEST(InjectVirtualThreadTest, NestedVirtualThreadsMultiplyTheAllocation) {
  Buffer a = Buffer::Declare("A", {2, 3, 5}, kInt32);
  Buffer t = Buffer::Declare("T", {5}, kInt32, "local");
  Var vx("vx"), vy("vy"), k("k"), k2("k");
  Stmt body = VThread(
      vx, 2,
      VThread(vy, 3,
              Allocate(t, SeqStmt({For(k, 0, 5, ForKind::kSerial,
                                       BufferStore(t, BufferLoad(a, {vx, vy, k}) + vx * vy, {k})),
                                   For(k2, 0, 5, ForKind::kSerial,
                                       BufferStore(a, BufferLoad(t, {4 - k2}), {vx, vy, k2}))}))));
  PrimFunc out = InjectChecked(MakeFunc("f", {a}, {}, body));
  EXPECT_NE(Text(out).find("allocate T: int32[30] scope \"local\""), std::string::npos)
      << Text(out);
}

// A buffer written only through an impure call (a tensor intrinsic's output tile, passed as its
// first buffer argument) is per thread when the call depends on the thread; a buffer the call
// only reads, filled alike for every thread, stays one. (Printed only: the interpreter does not
// run the extern call.)
TEST(InjectVirtualThreadTest, TheOutputOfAThreadDependentCallIsPerThread) {
  Buffer a = Buffer::Declare("A", {2}, kInt32);
  Buffer c = Buffer::Declare("C", {2}, kInt32);
  Buffer t = Buffer::Declare("T", {1}, kInt32, "vdla.acc");
  Buffer r = Buffer::Declare("R", {1}, kInt32, "vdla.wgt");
  Var vt("vt");
  Stmt fill = BufferStore(r, BufferLoad(a, {0}), {0});
  Stmt call = Evaluate(
      Call(kInt32, Intrinsic::kCallExtern,
           {StringImm("accumulate"), BufferLoad(t, {0}), BufferLoad(a, {vt}), BufferLoad(r, {0})}));
  Stmt body = VThread(
      vt, 2,
      Allocate(t, Allocate(r, SeqStmt({fill, call, BufferStore(c, BufferLoad(t, {0}), {vt})}))));
  absl::StatusOr<Stmt> out = InjectVirtualThread(body);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ToString(*out),
            "allocate T: int32[2] scope \"vdla.acc\" {\n"
            "  allocate R: int32[1] scope \"vdla.wgt\" {\n"
            "    R[0] = A[0]\n"
            "    call_extern(\"accumulate\", T[0], A[0], R[0])\n"
            "    call_extern(\"accumulate\", T[1], A[1], R[0])\n"
            "    C[0] = T[0]\n"
            "    C[1] = T[1]\n"
            "  }\n"
            "}\n");
}

TEST(InjectVirtualThreadTest, BodyWithoutTheThreadVariableRunsOnce) {
  Buffer c = Buffer::Declare("C", {4}, kInt32);
  Var vt("vt"), i("i");
  Stmt body = VThread(vt, 4, For(i, 0, 4, ForKind::kSerial, BufferStore(c, i * i, {i})));
  PrimFunc out = InjectChecked(MakeFunc("f", {c}, {}, body));
  EXPECT_EQ(Text(out),
            "for (i, 0, 4) {\n"
            "  C[i] = (i * i)\n"
            "}\n");
}

TEST(InjectVirtualThreadTest, NonConstantThreadCountIsAnErrorNamingTheLoop) {
  Buffer c = Buffer::Declare("C", {4}, kInt32);
  Var vt("vt"), n("n");
  absl::StatusOr<Stmt> result = InjectVirtualThread(
      For(vt, 0, n, ForKind::kThreadBinding, BufferStore(c, vt, {vt}), "vthread"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "virtual thread loop 'vt' has extent n; it needs a positive constant");
}

}  // namespace
}  // namespace tessel::transforms
