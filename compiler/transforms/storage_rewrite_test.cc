// StorageRewrite: printed IR before/after (hoisting, reuse, and the cases that must not merge),
// well-formedness, and the interpreter's results before and after.
#include "compiler/transforms/storage_rewrite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <variant>

#include "compiler/codegen/interp/extern.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/transforms/test_util.h"

namespace tessel::transforms {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand
using testing::MakeFunc;
using testing::SameOutputs;
using testing::Text;
using testing::WellFormed;

PrimFunc RewriteChecked(const PrimFunc& f, const std::vector<int64_t>& scalars = {}) {
  PrimFunc out = StorageRewrite(f);
  EXPECT_TRUE(WellFormed(out));
  for (uint32_t seed = 0; seed < 3; ++seed) EXPECT_TRUE(SameOutputs(f, out, seed, scalars));
  return out;
}

TEST(StorageRewriteTest, AllocationsLeaveLoopsWhoseVariablesTheirSizeDoesNotUse) {
  Buffer a = Buffer::Declare("A", {3, 4}, kFloat32);
  Buffer t = Buffer::Declare("T", {4}, kFloat32, "local");
  Buffer u = Buffer::Declare("U", {1}, kFloat32, "local");
  Var i("i"), j("j"), j2("j"), n("n");
  // U's size uses i: it stays in the loop.
  Buffer v = Buffer::Declare("V", {i + 1}, kFloat32, "local");
  Stmt body = For(
      i, 0, 3, ForKind::kSerial,
      Allocate(
          t,
          Allocate(
              v,
              SeqStmt(
                  {For(j, 0, 4, ForKind::kSerial,
                       BufferStore(t, BufferLoad(a, {i * 4 + j}) * 2.0f, {j})),
                   BufferStore(v, BufferLoad(t, {0}), {i}),
                   For(j2, 0, 4, ForKind::kSerial,
                       Allocate(u, SeqStmt({BufferStore(u, BufferLoad(t, {3 - j2}), {0}),
                                            BufferStore(a, BufferLoad(u, {0}) + BufferLoad(v, {i}),
                                                        {i * 4 + j2})})))}))));
  PrimFunc out = RewriteChecked(MakeFunc("f", {a}, {}, body));
  EXPECT_EQ(Text(out),
            "allocate T: float32[4] scope \"local\" {\n"
            "  allocate U: float32[1] scope \"local\" {\n"
            "    for (i, 0, 3) {\n"
            "      allocate V: float32[(i + 1)] scope \"local\" {\n"
            "        for (j, 0, 4) {\n"
            "          T[j] = (A[((i * 4) + j)] * 2.0f)\n"
            "        }\n"
            "        V[i] = T[0]\n"
            "        for (j_1, 0, 4) {\n"
            "          U[0] = T[(3 - j_1)]\n"
            "          A[((i * 4) + j_1)] = (U[0] + V[i])\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(StorageRewriteTest, SizeUsingAnOuterLoopMovesToThatLoopsTop) {
  // W's size uses i: it leaves the j loop and the if, and stops at the top of i's body.
  Buffer a = Buffer::Declare("A", {3, 4}, kInt32);
  Var i("i"), j("j");
  Buffer w = Buffer::Declare("W", {i + 2}, kInt32, "local");
  Stmt body = For(
      i, 0, 3, ForKind::kSerial,
      For(j, 0, 4, ForKind::kSerial,
          IfThenElse(j > 0,
                     Allocate(w, SeqStmt({BufferStore(w, BufferLoad(a, {i, j}), {i + 1}),
                                          BufferStore(a, BufferLoad(w, {i + 1}) * 2, {i, j})})))));
  PrimFunc out = RewriteChecked(MakeFunc("f", {a}, {}, body));
  EXPECT_EQ(Text(out),
            "for (i, 0, 3) {\n"
            "  allocate W: int32[(i + 2)] scope \"local\" {\n"
            "    for (j, 0, 4) {\n"
            "      if ((j > 0)) {\n"
            "        W[(i + 1)] = A[i, j]\n"
            "        A[i, j] = (W[(i + 1)] * 2)\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(StorageRewriteTest, BuffersWithDisjointLifetimesShareOneAllocation) {
  // P, then Q (larger), then R of another dtype, each filled and drained in turn.
  Buffer a = Buffer::Declare("A", {8}, kFloat32);
  Buffer b = Buffer::Declare("B", {8}, kInt32);
  Buffer p = Buffer::Declare("P", {4}, kFloat32, "local");
  Buffer q = Buffer::Declare("Q", {8}, kFloat32, "local");
  Buffer r = Buffer::Declare("R", {8}, kInt32, "local");
  Var i("i"), j("j"), k("k"), l("l"), m("m"), o("o");
  Stmt body = Allocate(
      p,
      Allocate(
          q,
          Allocate(
              r, SeqStmt({
                     For(i, 0, 4, ForKind::kSerial, BufferStore(p, BufferLoad(a, {i}), {i})),
                     For(j, 0, 4, ForKind::kSerial, BufferStore(a, BufferLoad(p, {3 - j}), {j})),
                     For(k, 0, 8, ForKind::kSerial, BufferStore(q, BufferLoad(a, {k}) + 1.0f, {k})),
                     For(l, 0, 8, ForKind::kSerial, BufferStore(a, BufferLoad(q, {7 - l}), {l})),
                     For(m, 0, 8, ForKind::kSerial, BufferStore(r, BufferLoad(b, {m}) * 2, {m})),
                     For(o, 0, 8, ForKind::kSerial, BufferStore(b, BufferLoad(r, {7 - o}), {o})),
                 }))));
  PrimFunc out = RewriteChecked(MakeFunc("f", {a, b}, {}, body));
  EXPECT_EQ(Text(out),
            "allocate P: float32[8] scope \"local\" {\n"
            "  allocate R: int32[8] scope \"local\" {\n"
            "    for (i, 0, 4) {\n"
            "      P[i] = A[i]\n"
            "    }\n"
            "    for (j, 0, 4) {\n"
            "      A[j] = P[(3 - j)]\n"
            "    }\n"
            "    for (k, 0, 8) {\n"
            "      P[k] = (A[k] + 1.0f)\n"
            "    }\n"
            "    for (l, 0, 8) {\n"
            "      A[l] = P[(7 - l)]\n"
            "    }\n"
            "    for (m, 0, 8) {\n"
            "      R[m] = (B[m] * 2)\n"
            "    }\n"
            "    for (o, 0, 8) {\n"
            "      B[o] = R[(7 - o)]\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(StorageRewriteTest, ValuesCarriedAcrossIterationsKeepTheirBuffer) {
  // P accumulates across iterations of k; Q lives within one iteration, after P's accesses. In
  // program order they do not overlap, but P's value must survive Q's use.
  Buffer a = Buffer::Declare("A", {4}, kInt32);
  Buffer b = Buffer::Declare("B", {4}, kInt32);
  Buffer c = Buffer::Declare("C", {4}, kInt32);
  Buffer p = Buffer::Declare("P", {1}, kInt32, "local");
  Buffer q = Buffer::Declare("Q", {1}, kInt32, "local");
  Var k("k");
  Stmt body = Allocate(
      p, Allocate(
             q, SeqStmt({BufferStore(p, Expr(0), {0}),
                         For(k, 0, 4, ForKind::kSerial,
                             SeqStmt({BufferStore(p, BufferLoad(p, {0}) + BufferLoad(a, {k}), {0}),
                                      BufferStore(c, BufferLoad(p, {0}), {k}),
                                      BufferStore(q, BufferLoad(a, {k}) * 3, {0}),
                                      BufferStore(b, BufferLoad(q, {0}), {k})}))})));
  PrimFunc f = MakeFunc("f", {a, b, c}, {}, body);
  PrimFunc out = RewriteChecked(f);
  EXPECT_EQ(Text(out), Text(f));
}

TEST(StorageRewriteTest, BuffersOfOneIterationShareWhenHoisted) {
  // The same two buffers allocated inside the loop: each iteration has fresh ones, so after
  // hoisting they can share.
  Buffer a = Buffer::Declare("A", {4}, kInt32);
  Buffer b = Buffer::Declare("B", {4}, kInt32);
  Buffer c = Buffer::Declare("C", {4}, kInt32);
  Buffer p = Buffer::Declare("P", {1}, kInt32, "local");
  Buffer q = Buffer::Declare("Q", {1}, kInt32, "local");
  Var k("k");
  Stmt body = For(k, 0, 4, ForKind::kSerial,
                  SeqStmt({Allocate(p, SeqStmt({BufferStore(p, BufferLoad(a, {k}) + 1, {0}),
                                                BufferStore(c, BufferLoad(p, {0}), {k})})),
                           Allocate(q, SeqStmt({BufferStore(q, BufferLoad(a, {k}) * 3, {0}),
                                                BufferStore(b, BufferLoad(q, {0}), {k})}))}));
  PrimFunc out = RewriteChecked(MakeFunc("f", {a, b, c}, {}, body));
  EXPECT_EQ(Text(out),
            "allocate P: int32[1] scope \"local\" {\n"
            "  for (k, 0, 4) {\n"
            "    P[0] = (A[k] + 1)\n"
            "    C[k] = P[0]\n"
            "    P[0] = (A[k] * 3)\n"
            "    B[k] = P[0]\n"
            "  }\n"
            "}\n");
}

TEST(StorageRewriteTest, ScopesThreadLoopsAndEscapingBuffersAreRespected) {
  Buffer a = Buffer::Declare("A", {4}, kFloat32);
  Buffer s = Buffer::Declare("S", {4}, kFloat32, "shared");
  Buffer l = Buffer::Declare("L", {4}, kFloat32, "local");
  Buffer e = Buffer::Declare("E", {4}, kFloat32, "local");
  Buffer g = Buffer::Declare("G", {4}, kFloat32, "local");
  Var tx("tx"), bx("bx");
  Stmt thread = For(tx, 0, 4, ForKind::kThreadBinding,
                    // L is per thread: it stays inside the thread loop.
                    Allocate(l, SeqStmt({BufferStore(l, BufferLoad(s, {tx}), {0}),
                                         BufferStore(a, BufferLoad(l, {0}), {tx})})),
                    "threadIdx.x");
  Stmt body =
      For(bx, 0, 1, ForKind::kThreadBinding,
          SeqStmt({Allocate(s, SeqStmt({BufferStore(s, BufferLoad(a, {0}), {0}), thread})),
                   // E escapes to a call: it keeps its own storage even though G follows it.
                   Allocate(e, Evaluate(Call(kInt32, Intrinsic::kCallExtern,
                                             {StringImm("touch"), e->data}))),
                   Allocate(g, BufferStore(g, 1.0f, {0}))}),
          "blockIdx.x");
  // "touch" fills its buffer argument, so E must hold four floats of its own.
  (void)interp::ExternRegistry::Global().Register(
      "touch", [](std::span<const interp::ExternArg> args) -> absl::StatusOr<interp::ExternResult> {
        float* data = static_cast<float*>(std::get<void*>(args[0]));
        for (int k = 0; k < 4; ++k) data[k] = 0.5f * k;
        return int64_t{0};
      });
  PrimFunc out = RewriteChecked(MakeFunc("f", {a}, {}, body));
  EXPECT_EQ(Text(out),
            "for (bx, 0, 1) thread_binding(\"blockIdx.x\") {\n"
            "  allocate S: float32[4] scope \"shared\" {\n"
            "    allocate E: float32[4] scope \"local\" {\n"
            "      allocate G: float32[4] scope \"local\" {\n"
            "        S[0] = A[0]\n"
            "        for (tx, 0, 4) thread_binding(\"threadIdx.x\") {\n"
            "          allocate L: float32[4] scope \"local\" {\n"
            "            L[0] = S[tx]\n"
            "            A[tx] = L[0]\n"
            "          }\n"
            "        }\n"
            "        call_extern(\"touch\", E)\n"
            "        G[0] = 1.0f\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// Random programs: buffers of random sizes, dtypes and scopes, allocated inside or outside a
// loop, each written before it is read; some written only in the first iteration and read in
// every later one. The rewritten program must compute the same outputs.
TEST(StorageRewriteTest, RandomProgramsKeepTheirResults) {
  std::mt19937 rng(2024);
  auto allocations = [](const PrimFunc& f) {
    int n = 0;
    PreOrderVisit(f->body, nullptr, [&](const Stmt& st) { n += st.as<AllocateNode>() != nullptr; });
    return n;
  };
  int merged = 0;
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int trial = 0; trial < 60; ++trial) {
    Buffer in = Buffer::Declare("In", {8}, kFloat32);
    Buffer out_b = Buffer::Declare("Out", {8}, kFloat32);
    Var r("r");
    struct Buf {
      Buffer buffer;
      bool outside;  // allocated outside the loop over r
      bool carried;  // written only when r == 0
    };
    std::vector<Buf> bufs;
    const int count = 2 + pick(4);
    for (int b = 0; b < count; ++b) {
      const int size = 1 + pick(6);
      const DataType t = pick(2) ? kFloat32 : kInt32;
      const bool outside = pick(2);
      bufs.push_back(
          {Buffer::Declare("T" + std::to_string(b), {size}, t, pick(3) ? "local" : "shared"),
           outside, outside && pick(2)});
    }
    // Events: each buffer's write, then 1-2 reads, interleaved at random.
    std::vector<std::pair<int, bool>> events;  // (buffer, is_write)
    std::vector<int> pending_reads(count);
    std::vector<bool> written(count, false);
    for (int b = 0; b < count; ++b) pending_reads[b] = 1 + pick(2);
    for (;;) {
      std::vector<int> ready;
      for (int b = 0; b < count; ++b) {
        if (!written[b] || pending_reads[b] > 0) ready.push_back(b);
      }
      if (ready.empty()) break;
      const int b = ready[pick(static_cast<int>(ready.size()))];
      if (!written[b]) {
        written[b] = true;
        events.emplace_back(b, true);
      } else {
        --pending_reads[b];
        events.emplace_back(b, false);
      }
    }
    std::vector<Stmt> seq;
    for (auto [b, write] : events) {
      const Buffer& buf = bufs[b].buffer;
      const int size = static_cast<int>(*AsConstInt(buf->shape[0]));
      Var j("j");
      Stmt st;
      if (write) {
        Expr v = BufferLoad(in, {floormod(j + b, 8)}) * 2.0f + cast(kFloat32, r);
        st = For(j, 0, size, ForKind::kSerial, BufferStore(buf, cast(buf->dtype, v), {j}));
        if (bufs[b].carried) st = IfThenElse(r == 0, st);
      } else {
        Expr at = floormod(j * 3 + b, 8);
        st = For(j, 0, size, ForKind::kSerial,
                 BufferStore(out_b, BufferLoad(out_b, {at}) + cast(kFloat32, BufferLoad(buf, {j})),
                             {at}));
      }
      seq.push_back(st);
    }
    // Buffers made inside the loop wrap the body from their first event on.
    std::vector<std::pair<size_t, int>> firsts;  // (first event index, buffer)
    for (int b = 0; b < count; ++b) {
      if (bufs[b].outside) continue;
      for (size_t e = 0; e < events.size(); ++e) {
        if (events[e].first == b) {
          firsts.emplace_back(e, b);
          break;
        }
      }
    }
    std::sort(firsts.begin(), firsts.end());
    Stmt body;
    for (size_t e = seq.size(), f = firsts.size(); e-- > 0;) {
      body = body.defined() ? SeqStmt({seq[e], body}) : seq[e];
      while (f > 0 && firsts[f - 1].first == e)
        body = Allocate(bufs[firsts[--f].second].buffer, body);
    }
    body = For(r, 0, 3, ForKind::kSerial, body);
    for (const Buf& b : bufs) {
      if (b.outside) body = Allocate(b.buffer, body);
    }
    PrimFunc f = MakeFunc("random", {in, out_b}, {}, body);
    ASSERT_TRUE(WellFormed(f)) << trial;
    PrimFunc rewritten = StorageRewrite(f);
    EXPECT_TRUE(WellFormed(rewritten)) << trial;
    EXPECT_TRUE(SameOutputs(f, rewritten, trial)) << trial << "\n" << ToString(f);
    merged += allocations(rewritten) < allocations(f);
  }
  EXPECT_GE(merged, 5);  // the programs do exercise reuse
}

}  // namespace
}  // namespace tessel::transforms
