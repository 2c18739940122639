// Hand-built matmul loop nests against a naive C++ matmul on random data.
#include <gtest/gtest.h>

#include <random>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/testing/backends.h"

namespace tessel::interp {
namespace {

using testing::HostTensor;
using testing::Loop;

// Every test runs on the interpreter and through the LLVM backend (one body, two backends).
class MatmulTest : public ::testing::TestWithParam<tessel::testing::Backend> {
 protected:
  absl::Status Run(const ir::PrimFunc& f, const std::vector<Arg>& args) {
    return tessel::testing::RunOn(GetParam(), f, args);
  }
};

AlignedVector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  AlignedVector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// C = A * B for row-major A (m x k) and B (k x n), accumulating in float in k order.
AlignedVector<float> NaiveMatmul(const AlignedVector<float>& a, const AlignedVector<float>& b,
                                 int m, int k, int n) {
  AlignedVector<float> c(static_cast<size_t>(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int r = 0; r < k; ++r) sum = sum + a[i * k + r] * b[r * n + j];
      c[i * n + j] = sum;
    }
  }
  return c;
}

// C[m, 29] = A[m, 23] * B[23, 29] with m symbolic, tiled 8 x 8 over i and j. The tiles do not
// divide m or 29: the last tiles are guarded by an if.
ir::PrimFunc TiledMatmul() {
  const int kK = 23, kN = 29, kTile = 8;
  ir::Var m("m");
  ir::Buffer a = ir::Buffer::Declare("A", {m, kK}, ir::kFloat32);
  ir::Buffer b = ir::Buffer::Declare("B", {kK, kN}, ir::kFloat32);
  ir::Buffer c = ir::Buffer::Declare("C", {m, kN}, ir::kFloat32);
  ir::Var io("io"), jo("jo"), ii("ii"), ji("ji"), r("r");
  ir::Expr i = io * kTile + ii;
  ir::Expr j = jo * kTile + ji;
  ir::Stmt update = ir::BufferStore(
      c, ir::BufferLoad(c, {i, j}) + ir::BufferLoad(a, {i, r}) * ir::BufferLoad(b, {r, j}), {i, j});
  ir::Stmt body = ir::SeqStmt({ir::BufferStore(c, ir::Expr(0.0f), {i, j}), Loop(r, kK, update)});
  ir::Stmt guarded = ir::IfThenElse(i < m && j < kN, body);
  ir::Stmt nest =
      Loop(io, (m + kTile - 1) / kTile,
           Loop(jo, (kN + kTile - 1) / kTile, Loop(ii, kTile, Loop(ji, kTile, guarded))));
  return ir::PrimFunc("tiled_matmul", {a->data, b->data, c->data}, {a, b, c}, nest);
}

TEST_P(MatmulTest, TiledMatmulWithGuardMatchesNaive) {
  absl::StatusOr<Program> program = Program::Compile(TiledMatmul());
  ASSERT_TRUE(program.ok()) << program.status();
  // One compiled program, run on two sizes of the symbolic dimension.
  for (int m : {37, 8}) {
    HostTensor<float> a({m, 23}), b({23, 29}), c({m, 29});
    a.values = RandomFloats(a.values.size(), 1 + m);
    b.values = RandomFloats(b.values.size(), 2 + m);
    ASSERT_TRUE(program->Run({a.dl(), b.dl(), c.dl()}).ok());
    const AlignedVector<float> want = NaiveMatmul(a.values, b.values, m, 23, 29);
    ASSERT_EQ(c.values.size(), want.size());
    for (size_t e = 0; e < want.size(); ++e) ASSERT_EQ(c.values[e], want[e]) << "element " << e;
  }
}

// The same product after storage flattening: one index per access into 2-D argument buffers,
// and an accumulator in a "local" Allocate.
TEST_P(MatmulTest, FlatMatmulWithLocalAccumulatorMatchesNaive) {
  const int kM = 13, kK = 17, kN = 11;
  ir::Buffer a = ir::Buffer::Declare("A", {kM, kK}, ir::kFloat32);
  ir::Buffer b = ir::Buffer::Declare("B", {kK, kN}, ir::kFloat32);
  ir::Buffer c = ir::Buffer::Declare("C", {kM, kN}, ir::kFloat32);
  ir::Buffer acc = ir::Buffer::Declare("acc", {1}, ir::kFloat32, "local");
  ir::Var i("i"), j("j"), r("r");
  ir::Stmt inner = ir::BufferStore(
      acc,
      ir::BufferLoad(acc, {0}) + ir::BufferLoad(a, {i * kK + r}) * ir::BufferLoad(b, {r * kN + j}),
      {0});
  ir::Stmt body =
      ir::Allocate(acc, ir::SeqStmt({ir::BufferStore(acc, ir::Expr(0.0f), {0}), Loop(r, kK, inner),
                                     ir::BufferStore(c, ir::BufferLoad(acc, {0}), {i * kN + j})}));
  ir::PrimFunc f("flat_matmul", {a->data, b->data, c->data}, {a, b, c},
                 Loop(i, kM, Loop(j, kN, body)));
  HostTensor<float> ta({kM, kK}), tb({kK, kN}), tc({kM, kN});
  ta.values = RandomFloats(ta.values.size(), 7);
  tb.values = RandomFloats(tb.values.size(), 8);
  const absl::Status status = Run(f, {ta.dl(), tb.dl(), tc.dl()});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(tc.values, NaiveMatmul(ta.values, tb.values, kM, kK, kN));
}

// Every loop kind runs sequentially; AttrStmt and likely() change nothing.
TEST_P(MatmulTest, EveryLoopKindComputesTheSameProduct) {
  const int kM = 6, kK = 5, kN = 7;
  ir::Buffer a = ir::Buffer::Declare("A", {kM, kK}, ir::kFloat32);
  ir::Buffer b = ir::Buffer::Declare("B", {kK, kN}, ir::kFloat32);
  ir::Buffer c = ir::Buffer::Declare("C", {kM, kN}, ir::kFloat32);
  ir::Var i("i"), j("j"), r("r");
  ir::Stmt update = ir::BufferStore(
      c, ir::BufferLoad(c, {i, j}) + ir::BufferLoad(a, {i, r}) * ir::BufferLoad(b, {r, j}), {i, j});
  ir::Stmt reduce = ir::For(r, 0, kK, ir::ForKind::kUnrolled, update);
  ir::Stmt body = ir::IfThenElse(ir::likely(j < kN),
                                 ir::SeqStmt({ir::BufferStore(c, ir::Expr(0.0f), {i, j}), reduce}));
  ir::Stmt nest = ir::For(i, 0, kM, ir::ForKind::kParallel,
                          ir::AttrStmt(Ref<const Object>(c.get()), "pragma_debug", 1,
                                       ir::For(j, 0, kN, ir::ForKind::kVectorized, body)));
  ir::PrimFunc f("kinds", {a->data, b->data, c->data}, {a, b, c}, nest);
  HostTensor<float> ta({kM, kK}), tb({kK, kN}), tc({kM, kN});
  ta.values = RandomFloats(ta.values.size(), 11);
  tb.values = RandomFloats(tb.values.size(), 12);
  const absl::Status status = Run(f, {ta.dl(), tb.dl(), tc.dl()});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(tc.values, NaiveMatmul(ta.values, tb.values, kM, kK, kN));
}

INSTANTIATE_TEST_SUITE_P(Backends, MatmulTest, ::testing::ValuesIn(tessel::testing::AllBackends()),
                         tessel::testing::BackendParamName());

}  // namespace
}  // namespace tessel::interp
