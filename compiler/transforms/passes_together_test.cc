// The lowering passes in the order lowering runs them, on two small programs shaped like what
// schedule lowering emits; each step must stay well formed and compute what the input computes.
// A GPU tile loop with a double-buffered shared tile is checked against values computed here,
// since without barriers its threads race.
#include <gtest/gtest.h>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/transforms/inject_double_buffer.h"
#include "compiler/transforms/inject_virtual_thread.h"
#include "compiler/transforms/lower_intrinsics.h"
#include "compiler/transforms/storage_flatten.h"
#include "compiler/transforms/storage_rewrite.h"
#include "compiler/transforms/test_util.h"
#include "compiler/transforms/thread_sync.h"
#include "compiler/transforms/unroll.h"
#include "compiler/transforms/vectorize.h"

namespace tessel::transforms {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand
using interp::testing::HostTensor;
using testing::MakeFunc;
using testing::SameOutputs;
using testing::WellFormed;

Stmt Ok(absl::StatusOr<Stmt> s) {
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : Stmt();
}

// C[i, j] = sigmoid(sum_k A[i, k] * B[k, j]) through a realized row accumulator, with a
// vectorized inner loop, two virtual threads over rows and an unrolled reduction.
TEST(PassesTogetherTest, CpuStyleProgramKeepsItsResultsThroughEveryPass) {
  Buffer a = Buffer::Declare("A", {4, 3}, kFloat32);
  Buffer b = Buffer::Declare("B", {3, 8}, kFloat32);
  Buffer c = Buffer::Declare("C", {4, 8}, kFloat32);
  Buffer acc = Buffer::Declare("Acc", {1, 8}, kFloat32, "local");
  Var vt("vt"), io("io"), j("j"), k("k"), j2("j"), j3("j");
  Expr i = vt * 2 + io;
  Stmt init = For(j, 0, 8, ForKind::kVectorized, BufferStore(acc, 0.0f, {i, j}));
  Stmt update =
      For(k, 0, 3, ForKind::kUnrolled,
          For(j2, 0, 8, ForKind::kVectorized,
              BufferStore(acc,
                          BufferLoad(acc, {i, j2}) + BufferLoad(a, {i, k}) * BufferLoad(b, {k, j2}),
                          {i, j2})));
  Stmt out = For(j3, 0, 8, ForKind::kVectorized,
                 BufferStore(c, sigmoid(BufferLoad(acc, {i, j3})), {i, floormod(j3 + 8, 8)}));
  Stmt body = For(vt, 0, 2, ForKind::kThreadBinding,
                  For(io, 0, 2, ForKind::kSerial,
                      BufferRealize(acc, {{i, 1}, {0, 8}}, SeqStmt({init, update, out}))),
                  "vthread");
  PrimFunc f = MakeFunc("gemm_row", {a, b, c}, {}, body);
  ASSERT_TRUE(WellFormed(f));

  std::vector<PrimFunc> steps = {StorageFlatten(f)};
  steps.push_back(steps.back().WithBody(Ok(Vectorize(steps.back()->body))));
  steps.push_back(steps.back().WithBody(Ok(InjectVirtualThread(steps.back()->body))));
  steps.push_back(steps.back().WithBody(InjectDoubleBuffer(steps.back()->body)));
  steps.push_back(StorageRewrite(steps.back()));
  steps.push_back(steps.back().WithBody(Ok(Unroll(steps.back()->body))));
  steps.push_back(steps.back().WithBody(ThreadSync(steps.back()->body)));
  steps.push_back(steps.back().WithBody(LowerIntrinsics(steps.back()->body)));
  for (size_t s = 0; s < steps.size(); ++s) {
    EXPECT_TRUE(WellFormed(steps[s])) << "step " << s;
    EXPECT_TRUE(SameOutputs(f, steps[s], 17, {}, 1e-6)) << "step " << s;
  }
}

// One block of four threads; each step k, the threads fill a double-buffered shared tile
// cooperatively and each thread sums a column of it.
TEST(PassesTogetherTest, GpuTileLoopWithDoubleBufferedSharedMemory) {
  Buffer a = Buffer::Declare("A", {5, 8}, kFloat32);
  Buffer c = Buffer::Declare("C", {4}, kFloat32);
  Buffer s = Buffer::Declare("S", {2, 4}, kFloat32, "shared");
  Var bx("bx"), tx("tx"), k("k"), r("r");
  Stmt fill =
      For(r, 0, 2, ForKind::kSerial, BufferStore(s, BufferLoad(a, {k, r * 4 + tx}), {r, tx}));
  Stmt use = BufferStore(
      c, BufferLoad(c, {tx}) + BufferLoad(s, {0, 3 - tx}) * BufferLoad(s, {1, tx}), {tx});
  // As lowering emits it: the realize and its double_buffer_scope at the top of the k loop.
  Stmt tile = AttrStmt(Ref<const Object>(s->data.get()), attr::kDoubleBufferScope, 1,
                       BufferRealize(s, {{0, 2}, {0, 4}}, SeqStmt({fill, use})));
  Stmt body = For(
      bx, 0, 1, ForKind::kThreadBinding,
      For(tx, 0, 4, ForKind::kThreadBinding, For(k, 0, 5, ForKind::kSerial, tile), "threadIdx.x"),
      "blockIdx.x");
  PrimFunc f = MakeFunc("tile", {a, c}, {}, body);
  PrimFunc lowered = StorageFlatten(f);
  lowered = lowered.WithBody(InjectDoubleBuffer(lowered->body));
  lowered = StorageRewrite(lowered);
  lowered = lowered.WithBody(ThreadSync(lowered->body));
  ASSERT_TRUE(WellFormed(lowered));
  const std::string text = ToString(lowered->body);
  EXPECT_NE(text.find("allocate S: float32[16] scope \"shared\""), std::string::npos) << text;
  EXPECT_NE(text.find("storage_sync"), std::string::npos) << text;

  HostTensor<float> ta({5, 8}), tc({4}, 0.5f);
  for (int e = 0; e < 40; ++e) ta[e] = 0.25f * static_cast<float>((e * 7) % 11) - 1.0f;
  absl::Status status = interp::Run(lowered, {ta.dl(), tc.dl()});
  ASSERT_TRUE(status.ok()) << status << "\n" << text;
  for (int t = 0; t < 4; ++t) {
    float want = 0.5f;
    for (int step = 0; step < 5; ++step) want += ta[step * 8 + 3 - t] * ta[step * 8 + 4 + t];
    EXPECT_EQ(tc[t], want) << t << "\n" << text;
  }
}

}  // namespace
}  // namespace tessel::transforms
