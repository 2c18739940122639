// GPU thread binding: blocks and threads run sequentially, and thread blocks with barriers run
// phase by phase, as a GPU would.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"

namespace tessel::interp {
namespace {

using testing::Barrier;
using testing::Bind;
using testing::HostTensor;
using testing::Loop;

void ExpectError(const absl::Status& status, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(status.ok()) << "expected an error";
  const std::string message(status.message());
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

// Each block of 8 threads loads a tile of A into shared memory; after the barrier each thread
// reads the element another thread loaded, so B is A with every tile reversed.
ir::PrimFunc ReverseTiles(bool with_barrier) {
  const int tile = 8, blocks = 3;
  ir::Buffer a = ir::Buffer::Declare("A", {tile * blocks}, ir::kFloat32);
  ir::Buffer b = ir::Buffer::Declare("B", {tile * blocks}, ir::kFloat32);
  ir::Buffer s = ir::Buffer::Declare("S", {tile}, ir::kFloat32, "shared");
  ir::Var bx("bx"), tx("tx");
  std::vector<ir::Stmt> thread = {
      ir::BufferStore(s, ir::BufferLoad(a, {bx * tile + tx}), {tx}),
      with_barrier ? Barrier() : ir::Stmt(),
      ir::BufferStore(b, ir::BufferLoad(s, {tile - 1 - tx}), {bx * tile + tx}),
  };
  ir::Stmt kernel = Bind(bx, blocks, "blockIdx.x",
                         ir::Allocate(s, Bind(tx, tile, "threadIdx.x", ir::SeqStmt(thread))));
  return ir::PrimFunc("reverse_tiles", {a->data, b->data}, {a, b}, kernel);
}

TEST(ThreadTest, CooperativeFetchThroughSharedMemory) {
  HostTensor<float> a({24}), b({24});
  for (int k = 0; k < 24; ++k) a[k] = 1.0f + k;
  const absl::Status status = interp::Run(ReverseTiles(true), {a.dl(), b.dl()});
  ASSERT_TRUE(status.ok()) << status;
  for (int k = 0; k < 24; ++k) EXPECT_EQ(b[k], a[(k / 8) * 8 + 7 - k % 8]) << k;

  // Without the barrier the threads run one after another, and early threads read elements of
  // S that no thread has written yet: the answer is wrong, which shows the barrier matters.
  HostTensor<float> b2({24});
  ASSERT_TRUE(interp::Run(ReverseTiles(false), {a.dl(), b2.dl()}).ok());
  EXPECT_TRUE(std::isnan(b2[0]));
  EXPECT_NE(b2.values, b.values);
}

// C = A * B with 4 x 4 thread blocks that stage 4 x 4 tiles of A and B in shared memory, two
// barriers per step of the reduction loop, a per-thread accumulator in local storage, and a
// LetStmt between the threadIdx.y and threadIdx.x loops.
TEST(ThreadTest, SharedMemoryTiledMatmul) {
  const int m = 8, n = 12, k = 16, t = 4;
  ir::Buffer a = ir::Buffer::Declare("A", {m, k}, ir::kFloat32);
  ir::Buffer b = ir::Buffer::Declare("B", {k, n}, ir::kFloat32);
  ir::Buffer c = ir::Buffer::Declare("C", {m, n}, ir::kFloat32);
  ir::Buffer as = ir::Buffer::Declare("As", {t * t}, ir::kFloat32, "shared");
  ir::Buffer bs = ir::Buffer::Declare("Bs", {t * t}, ir::kFloat32, "shared");
  ir::Buffer acc = ir::Buffer::Declare("acc", {1}, ir::kFloat32, "local");
  ir::Var by("by"), bx("bx"), ty("ty"), tx("tx"), ko("ko"), ki("ki"), row("row");
  ir::Expr col = bx * t + tx;
  ir::Stmt step = ir::SeqStmt({
      ir::BufferStore(as, ir::BufferLoad(a, {row, ko * t + tx}), {ty * t + tx}),
      ir::BufferStore(bs, ir::BufferLoad(b, {ko * t + ty, col}), {ty * t + tx}),
      Barrier(),
      Loop(ki, t,
           ir::BufferStore(acc,
                           ir::BufferLoad(acc, {0}) + ir::BufferLoad(as, {ty * t + ki}) *
                                                          ir::BufferLoad(bs, {ki * t + tx}),
                           {0})),
      Barrier(),
  });
  ir::Stmt thread = ir::Allocate(
      acc, ir::SeqStmt({ir::BufferStore(acc, ir::Expr(0.0f), {0}), Loop(ko, k / t, step),
                        ir::BufferStore(c, ir::BufferLoad(acc, {0}), {row, col})}));
  ir::Stmt threads =
      Bind(ty, t, "threadIdx.y", ir::LetStmt(row, by * t + ty, Bind(tx, t, "threadIdx.x", thread)));
  ir::Stmt kernel =
      Bind(by, m / t, "blockIdx.y",
           Bind(bx, n / t, "blockIdx.x", ir::Allocate(as, ir::Allocate(bs, threads))));
  ir::PrimFunc f("tiled_matmul", {a->data, b->data, c->data}, {a, b, c}, kernel);

  HostTensor<float> ta({m, k}), tb({k, n}), tc({m, n});
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> dist(-8, 8);
  for (float& v : ta.values) v = static_cast<float>(dist(rng));
  for (float& v : tb.values) v = static_cast<float>(dist(rng));
  const absl::Status status = interp::Run(f, {ta.dl(), tb.dl(), tc.dl()});
  ASSERT_TRUE(status.ok()) << status;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float want = 0.0f;
      for (int r = 0; r < k; ++r) want += ta[i * k + r] * tb[r * n + j];
      EXPECT_EQ(tc[i * n + j], want) << i << ", " << j;
    }
  }
}

// Variables and local storage of each thread survive the barrier; shared storage is one per
// block, so thread 0 sees what the others wrote.
TEST(ThreadTest, PerThreadStateAndOneSharedBufferPerBlock) {
  const int threads = 4;
  ir::Buffer a = ir::Buffer::Declare("A", {threads}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {threads + 1}, ir::kInt32);
  ir::Buffer s = ir::Buffer::Declare("S", {threads}, ir::kInt32, "shared");
  ir::Buffer l = ir::Buffer::Declare("L", {1}, ir::kInt32, "local");
  ir::Var tx("tx"), mine("mine");
  ir::Expr total = ir::BufferLoad(s, {0}) + ir::BufferLoad(s, {1}) + ir::BufferLoad(s, {2}) +
                   ir::BufferLoad(s, {3});
  ir::Stmt body = ir::LetStmt(
      mine, ir::BufferLoad(a, {tx}) * 10,
      ir::Allocate(
          l, ir::SeqStmt({
                 ir::BufferStore(l, mine + 1, {0}),
                 ir::BufferStore(s, mine, {tx}),
                 Barrier(),
                 ir::BufferStore(out, ir::BufferLoad(l, {0}) + ir::BufferLoad(s, {3 - tx}), {tx}),
                 ir::IfThenElse(ir::EQ(tx, 0), ir::BufferStore(out, total, {threads})),
             })));
  ir::PrimFunc f("state", {a->data, out->data}, {a, out},
                 ir::Allocate(s, Bind(tx, threads, "threadIdx.x", body)));
  HostTensor<int32_t> ta({threads}), tout({threads + 1});
  ta.values = {1, 2, 3, 4};
  ASSERT_TRUE(interp::Run(f, {ta.dl(), tout.dl()}).ok());
  for (int k = 0; k < threads; ++k) EXPECT_EQ(tout[k], ta[k] * 10 + 1 + ta[3 - k] * 10) << k;
  EXPECT_EQ(tout[threads], 100);
}

TEST(ThreadTest, KernelWithoutBarriersRunsThreadByThread) {
  ir::Buffer a = ir::Buffer::Declare("A", {32}, ir::kInt32);
  ir::Var bx("bx"), tx("tx");
  ir::PrimFunc f("iota", {a->data}, {a},
                 Bind(bx, 4, "blockIdx.x",
                      ir::For(tx, 0, 8, ir::ForKind::kThreadBinding,
                              ir::BufferStore(a, bx * 8 + tx, {bx * 8 + tx}), "threadIdx.x")));
  HostTensor<int32_t> ta({32});
  ASSERT_TRUE(interp::Run(f, {ta.dl()}).ok());
  for (int k = 0; k < 32; ++k) EXPECT_EQ(ta[k], k);
}

TEST(ThreadTest, BarrierUnderThreadDependentIfIsRefused) {
  ir::Buffer out = ir::Buffer::Declare("out", {4}, ir::kInt32);
  ir::Var tx("tx");
  ir::Stmt body = ir::SeqStmt({ir::IfThenElse(tx < 2, Barrier()), ir::BufferStore(out, tx, {tx})});
  ir::PrimFunc f("divergent", {out->data}, {out}, Bind(tx, 4, "threadIdx.x", body));
  HostTensor<int32_t> tout({4});
  ExpectError(interp::Run(f, {tout.dl()}),
              {"function 'divergent'", "barrier (storage_sync)",
               "differs between the threads of a block", "the condition of `if ((tx < 2)) {`",
               "true for threadIdx (x=0, y=0, z=0)", "false for threadIdx (x=2, y=0, z=0)"});
}

TEST(ThreadTest, BarrierInThreadDependentLoopIsRefused) {
  ir::Var tx("tx"), k("k");
  ir::PrimFunc f("divergent_loop", {}, {}, Bind(tx, 4, "threadIdx.x", Loop(k, tx, Barrier())));
  ExpectError(interp::Run(f, {}),
              {"the range of loop 'k'", "[0, 0) for threadIdx (x=0", "[0, 1) for threadIdx (x=1"});
}

TEST(ThreadTest, MalformedThreadNestsAreRefused) {
  ir::Buffer out = ir::Buffer::Declare("out", {16}, ir::kInt32);
  ir::Var tx("tx"), tx2("tx2"), bx("bx");
  ir::PrimFunc same("same_index", {out->data}, {out},
                    Bind(tx, 4, "threadIdx.x",
                         Bind(tx2, 4, "threadIdx.x", ir::BufferStore(out, tx, {tx * 4 + tx2}))));
  ExpectError(Program::Compile(same).status(),
              {"loop 'tx2' bound to threadIdx.x is nested inside loop 'tx' bound to threadIdx.x"});
  ir::PrimFunc inverted("block_in_thread", {out->data}, {out},
                        Bind(tx, 4, "threadIdx.x",
                             Bind(bx, 4, "blockIdx.x", ir::BufferStore(out, tx, {tx * 4 + bx}))));
  ExpectError(Program::Compile(inverted).status(), {"blockIdx loops must enclose threadIdx loops"});
  ir::PrimFunc unknown("unknown_tag", {out->data}, {out},
                       Bind(tx, 4, "laneIdx.x", ir::BufferStore(out, tx, {tx})));
  ExpectError(Program::Compile(unknown).status(), {"unknown thread tag 'laneIdx.x'"});
}

// In a thread block, all loops of one tag are the same hardware index: their extents must agree.
TEST(ThreadTest, ThreadExtentsMustAgreeWithinABlock) {
  ir::Buffer out = ir::Buffer::Declare("out", {8}, ir::kInt32);
  ir::Var ty("ty"), tx("tx"), tx2("tx2");
  ir::Stmt body = ir::SeqStmt(
      {Bind(tx, 4, "threadIdx.x", ir::SeqStmt({ir::BufferStore(out, tx, {tx}), Barrier()})),
       Bind(tx2, 8, "threadIdx.x", ir::BufferStore(out, tx2, {tx2}))});
  ir::PrimFunc f("extents", {out->data}, {out}, Bind(ty, 1, "threadIdx.y", body));
  HostTensor<int32_t> tout({8});
  ExpectError(interp::Run(f, {tout.dl()}),
              {"threadIdx.x loops of one thread block have different extents: 4 (loop 'tx') and 8 "
               "(loop 'tx2')"});
}

}  // namespace
}  // namespace tessel::interp
