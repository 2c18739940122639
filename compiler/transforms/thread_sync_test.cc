// ThreadSync: printed IR before/after (barriers for read-after-write, write-after-read across
// iterations, none without a hazard), well-formedness, and the interpreter's results after the
// pass (which runs a block's threads phase by phase between barriers) against values computed
// here: without the barriers the threads would read stale shared memory.
#include "compiler/transforms/thread_sync.h"

#include <gtest/gtest.h>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/transforms/test_util.h"

namespace tessel::transforms {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand
using interp::testing::HostTensor;
using testing::MakeFunc;
using testing::Text;
using testing::WellFormed;

Stmt Bind(const Var& v, int extent, const char* tag, Stmt body) {
  return For(v, 0, extent, ForKind::kThreadBinding, std::move(body), tag);
}

// Four threads; in each of three steps each thread stages A[k * 4 + tx] in shared memory and
// adds its mirror thread's value: C[tx] += S[3 - tx].
struct Mirror {
  Buffer a = Buffer::Declare("A", {12}, kFloat32);
  Buffer c = Buffer::Declare("C", {4}, kFloat32);
  Buffer s = Buffer::Declare("S", {4}, kFloat32, "shared");
  Var bx{"bx"}, tx{"tx"}, k{"k"};

  PrimFunc Func() const {
    Stmt step = SeqStmt({BufferStore(s, BufferLoad(a, {k * 4 + tx}), {tx}),
                         BufferStore(c, BufferLoad(c, {tx}) + BufferLoad(s, {3 - tx}), {tx})});
    Stmt body = Bind(bx, 1, "blockIdx.x",
                     Allocate(s, Bind(tx, 4, "threadIdx.x", For(k, 0, 3, ForKind::kSerial, step))));
    return MakeFunc("mirror", {a, c}, {}, body);
  }
};

TEST(ThreadSyncTest, BarriersSeparateWritesFromReadsAndReadsFromTheNextWrites) {
  Mirror m;
  PrimFunc f = m.Func();
  PrimFunc out = f.WithBody(ThreadSync(f->body));
  EXPECT_EQ(Text(out),
            "for (bx, 0, 1) thread_binding(\"blockIdx.x\") {\n"
            "  allocate S: float32[4] scope \"shared\" {\n"
            "    for (tx, 0, 4) thread_binding(\"threadIdx.x\") {\n"
            "      for (k, 0, 3) {\n"
            "        storage_sync(\"shared\")\n"
            "        S[tx] = A[((k * 4) + tx)]\n"
            "        storage_sync(\"shared\")\n"
            "        C[tx] = (C[tx] + S[(3 - tx)])\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));

  HostTensor<float> ta({12}), tc({4}, 1.0f), stale({4}, 1.0f);
  for (int e = 0; e < 12; ++e) ta[e] = 0.5f * e;
  absl::Status status = interp::Run(out, {ta.dl(), tc.dl()});
  ASSERT_TRUE(status.ok()) << status;
  for (int t = 0; t < 4; ++t) {
    float want = 1.0f;
    for (int k = 0; k < 3; ++k) want += ta[k * 4 + 3 - t];
    EXPECT_EQ(tc[t], want) << t;
  }
  // Without barriers the threads run one after another and read shared memory not yet written.
  ASSERT_TRUE(interp::Run(f, {ta.dl(), stale.dl()}).ok());
  EXPECT_NE(stale.values, tc.values);
}

TEST(ThreadSyncTest, NoBarrierWithoutASharedBufferBothWrittenAndRead) {
  Buffer a = Buffer::Declare("A", {4}, kFloat32);
  Buffer s = Buffer::Declare("S", {4}, kFloat32, "shared");
  Buffer l = Buffer::Declare("L", {4}, kFloat32, "local");
  Var tx("tx"), k("k");
  // S is only written, L is not shared.
  Stmt body =
      Allocate(s, Allocate(l, Bind(tx, 4, "threadIdx.x",
                                   For(k, 0, 2, ForKind::kSerial,
                                       SeqStmt({BufferStore(l, BufferLoad(a, {tx}), {tx}),
                                                BufferStore(a, BufferLoad(l, {3 - tx}), {tx}),
                                                BufferStore(s, BufferLoad(a, {tx}), {tx})})))));
  EXPECT_TRUE(ThreadSync(body).same_as(body));
}

TEST(ThreadSyncTest, SiblingThreadLoopsGetTheBarrierInsideTheReader) {
  Buffer a = Buffer::Declare("A", {8}, kInt32);
  Buffer c = Buffer::Declare("C", {8}, kInt32);
  Buffer s = Buffer::Declare("S", {8}, kInt32, "shared");
  Var tx("tx"), tx2("tx");
  Stmt body = Allocate(
      s, SeqStmt({Bind(tx, 8, "threadIdx.x", BufferStore(s, BufferLoad(a, {tx}) * 2, {tx})),
                  Bind(tx2, 8, "threadIdx.x",
                       BufferStore(c, BufferLoad(s, {7 - tx2}) + BufferLoad(s, {tx2}), {tx2}))}));
  PrimFunc f = MakeFunc("sibling", {a, c}, {}, body);
  PrimFunc out = f.WithBody(ThreadSync(body));
  EXPECT_EQ(Text(out),
            "allocate S: int32[8] scope \"shared\" {\n"
            "  for (tx, 0, 8) thread_binding(\"threadIdx.x\") {\n"
            "    S[tx] = (A[tx] * 2)\n"
            "  }\n"
            "  for (tx_1, 0, 8) thread_binding(\"threadIdx.x\") {\n"
            "    storage_sync(\"shared\")\n"
            "    C[tx_1] = (S[(7 - tx_1)] + S[tx_1])\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  HostTensor<int32_t> ta({8}), tc({8});
  for (int e = 0; e < 8; ++e) ta[e] = e * e - 5;
  ASSERT_TRUE(interp::Run(out, {ta.dl(), tc.dl()}).ok());
  for (int t = 0; t < 8; ++t) EXPECT_EQ(tc[t], 2 * ta[7 - t] + 2 * ta[t]) << t;
}

TEST(ThreadSyncTest, ThreadDependentIfIsOneUnitWithTheBarrierBeforeIt) {
  // Threads 0..3 stage values; threads 0..1 combine pairs. The read sits under a condition on
  // tx: the barrier must go before the if, where every thread reaches it.
  Buffer a = Buffer::Declare("A", {4}, kFloat32);
  Buffer c = Buffer::Declare("C", {2}, kFloat32);
  Buffer s = Buffer::Declare("S", {4}, kFloat32, "shared");
  Var tx("tx");
  Stmt body = Allocate(
      s,
      Bind(tx, 4, "threadIdx.x",
           SeqStmt({BufferStore(s, BufferLoad(a, {tx}) + 1.0f, {tx}),
                    IfThenElse(tx < 2,
                               BufferStore(c, BufferLoad(s, {tx * 2}) + BufferLoad(s, {tx * 2 + 1}),
                                           {tx}))})));
  PrimFunc f = MakeFunc("pairs", {a, c}, {}, body);
  PrimFunc out = f.WithBody(ThreadSync(body));
  EXPECT_EQ(Text(out),
            "allocate S: float32[4] scope \"shared\" {\n"
            "  for (tx, 0, 4) thread_binding(\"threadIdx.x\") {\n"
            "    S[tx] = (A[tx] + 1.0f)\n"
            "    storage_sync(\"shared\")\n"
            "    if ((tx < 2)) {\n"
            "      C[tx] = (S[(tx * 2)] + S[((tx * 2) + 1)])\n"
            "    }\n"
            "  }\n"
            "}\n");
  HostTensor<float> ta({4}), tc({2});
  for (int e = 0; e < 4; ++e) ta[e] = 1.25f * e;
  ASSERT_TRUE(interp::Run(out, {ta.dl(), tc.dl()}).ok());
  for (int t = 0; t < 2; ++t) EXPECT_EQ(tc[t], (ta[2 * t] + 1.0f) + (ta[2 * t + 1] + 1.0f));
}

TEST(ThreadSyncTest, ExistingBarrierIsReused) {
  Mirror m;
  Stmt step = SeqStmt({BufferStore(m.s, BufferLoad(m.a, {m.tx}), {m.tx}),
                       Evaluate(Call(kInt32, Intrinsic::kStorageSync, {StringImm("shared")})),
                       BufferStore(m.c, BufferLoad(m.s, {3 - m.tx}), {m.tx})});
  Stmt body = Allocate(m.s, Bind(m.tx, 4, "threadIdx.x", step));
  EXPECT_TRUE(ThreadSync(body).same_as(body));
}

TEST(ThreadSyncTest, LoopThatSynchronizesAtItsTopNeedsNoBarrierBeforeIt) {
  // The shape double buffering leaves: a prefetch, then a loop whose body refills the other copy
  // and reads this one. The barrier at the top of the body also orders the prefetch.
  Buffer a = Buffer::Declare("A", {20}, kFloat32);
  Buffer c = Buffer::Declare("C", {4}, kFloat32);
  Buffer s = Buffer::Declare("S", {8}, kFloat32, "shared");
  Var tx("tx"), k("k");
  Stmt prefetch = BufferStore(s, BufferLoad(a, {tx}), {tx});
  Stmt refill = IfThenElse(
      k + 1 < 5, BufferStore(s, BufferLoad(a, {(k + 1) * 4 + tx}), {tx + floormod(k + 1, 2) * 4}));
  Stmt use =
      BufferStore(c, BufferLoad(c, {tx}) + BufferLoad(s, {3 - tx + floormod(k, 2) * 4}), {tx});
  Stmt body = Allocate(
      s, Bind(tx, 4, "threadIdx.x",
              SeqStmt({prefetch, For(k, 0, 5, ForKind::kSerial, SeqStmt({refill, use}))})));
  PrimFunc f = MakeFunc("db", {a, c}, {}, body);
  PrimFunc out = f.WithBody(ThreadSync(body));
  EXPECT_EQ(Text(out),
            "allocate S: float32[8] scope \"shared\" {\n"
            "  for (tx, 0, 4) thread_binding(\"threadIdx.x\") {\n"
            "    S[tx] = A[tx]\n"
            "    for (k, 0, 5) {\n"
            "      storage_sync(\"shared\")\n"
            "      if (((k + 1) < 5)) {\n"
            "        S[(tx + (floormod((k + 1), 2) * 4))] = A[(((k + 1) * 4) + tx)]\n"
            "      }\n"
            "      storage_sync(\"shared\")\n"
            "      C[tx] = (C[tx] + S[((3 - tx) + (floormod(k, 2) * 4))])\n"
            "    }\n"
            "  }\n"
            "}\n");
  HostTensor<float> ta({20}), tc({4});
  for (int e = 0; e < 20; ++e) ta[e] = 1.0f + e;
  ASSERT_TRUE(interp::Run(out, {ta.dl(), tc.dl()}).ok());
  for (int t = 0; t < 4; ++t) {
    float want = 0.0f;
    for (int step = 0; step < 5; ++step) want += ta[step * 4 + 3 - t];
    EXPECT_EQ(tc[t], want) << t;
  }
}

}  // namespace
}  // namespace tessel::transforms
