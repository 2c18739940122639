#include "compiler/codegen/gpu/testing/gpu_kernels.h"

#include <string>

#include "compiler/ir/op.h"
#include "compiler/ops/cuda/matmul_kernel.h"
#include "compiler/schedule/schedule.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::codegen::gpu::testing {
namespace {

using ir::Var;
using schedule::Schedule;
using te::Tensor;

const std::vector<ir::IterVar>& Axes(const Tensor& t) {
  return t.op().as<te::ComputeOpNode>()->axis;
}

}  // namespace

absl::StatusOr<GpuKernel> VectorAdd() {
  Var n("n");
  Tensor A = te::placeholder({n}, ir::kFloat32, "A");
  Tensor B = te::placeholder({n}, ir::kFloat32, "B");
  Tensor C = te::compute(
      {n}, [&](Var i) { return A(i) + B(i); }, "C");
  Schedule s = schedule::create_schedule({C.op()});
  TESSEL_ASSIGN_OR_RETURN(auto i, s[C].split(Axes(C)[0], 64));
  TESSEL_RETURN_IF_ERROR(s[C].bind(i.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[C].bind(i.inner, "threadIdx.x"));
  GpuKernel k;
  TESSEL_ASSIGN_OR_RETURN(k.func, transforms::Lower(s, {A, B, C}, "vector_add"));
  k.tensor_shapes = {{1000}, {1000}, {1000}};
  k.scalars = {1000};
  k.threads = 64;
  return k;
}

absl::StatusOr<GpuKernel> SharedMatmul() {
  // Fig. 7's kernel: 64 x 64 tiles of C per 16 x 16 threads, each thread's 4 x 4 block
  // accumulated in registers, k in steps of 8 through shared tiles fetched cooperatively.
  const int n = 256, tile = 64, threads = 16, step = 8;
  GpuKernel g;
  TESSEL_ASSIGN_OR_RETURN(
      g.func,
      ops::cuda::MatmulKernel({n, /*cooperative=*/true, tile, threads, step}, "shared_matmul"));
  g.tensor_shapes = {{n, n}, {n, n}, {n, n}};
  g.shared_bytes = 2 * tile * step * 4;
  g.threads = threads * threads;
  return g;
}

absl::StatusOr<GpuKernel> RowSumExp() {
  const int rows = 128, cols = 256;
  Tensor A = te::placeholder({rows, cols}, ir::kFloat32, "A");
  ir::IterVar k = te::reduce_axis({0, cols}, "k");
  Tensor B = te::compute(
      {rows}, [&](Var i) { return te::sum(ir::exp(A(i, k)), {k}); }, "B");
  Schedule s = schedule::create_schedule({B.op()});
  TESSEL_ASSIGN_OR_RETURN(auto i, s[B].split(Axes(B)[0], 32));
  TESSEL_RETURN_IF_ERROR(s[B].bind(i.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[B].bind(i.inner, "threadIdx.x"));
  GpuKernel g;
  TESSEL_ASSIGN_OR_RETURN(g.func, transforms::Lower(s, {A, B}, "row_sum_exp"));
  g.tensor_shapes = {{rows, cols}, {rows}};
  g.threads = 32;
  return g;
}

absl::StatusOr<GpuKernel> Float4Scale() {
  const int n = 4096;
  Tensor A = te::placeholder({n}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "B");
  Schedule s = schedule::create_schedule({B.op()});
  TESSEL_ASSIGN_OR_RETURN(auto v, s[B].split(Axes(B)[0], 4));
  TESSEL_ASSIGN_OR_RETURN(auto t, s[B].split(v.outer, 128));
  TESSEL_RETURN_IF_ERROR(s[B].bind(t.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[B].bind(t.inner, "threadIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[B].vectorize(v.inner));
  GpuKernel g;
  TESSEL_ASSIGN_OR_RETURN(g.func, transforms::Lower(s, {A, B}, "float4_scale"));
  g.tensor_shapes = {{n}, {n}};
  g.threads = 128;
  return g;
}

absl::StatusOr<GpuKernel> VthreadAffine() {
  const int n = 64;
  Tensor A = te::placeholder({n, n}, ir::kFloat32, "A");
  Tensor C = te::compute(
      {n, n}, [&](Var i, Var j) { return A(i, j) * 2.0f + 1.0f; }, "C");
  Schedule s = schedule::create_schedule({C.op()});
  TESSEL_ASSIGN_OR_RETURN(auto i, s[C].split(Axes(C)[0], 32));
  TESSEL_ASSIGN_OR_RETURN(auto v, s[C].split_nparts(i.inner, 2));
  TESSEL_ASSIGN_OR_RETURN(auto j, s[C].split(Axes(C)[1], 16));
  TESSEL_RETURN_IF_ERROR(s[C].reorder({i.outer, j.outer, v.outer, v.inner, j.inner}));
  TESSEL_RETURN_IF_ERROR(s[C].bind(i.outer, "blockIdx.y"));
  TESSEL_RETURN_IF_ERROR(s[C].bind(j.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[C].bind(v.outer, "vthread"));
  TESSEL_RETURN_IF_ERROR(s[C].bind(v.inner, "threadIdx.y"));
  TESSEL_RETURN_IF_ERROR(s[C].bind(j.inner, "threadIdx.x"));
  GpuKernel g;
  TESSEL_ASSIGN_OR_RETURN(g.func, transforms::Lower(s, {A, C}, "vthread_affine"));
  g.tensor_shapes = {{n, n}, {n, n}};
  g.threads = 16 * 16;
  return g;
}

absl::StatusOr<GpuKernel> IndexReuse() {
  ir::Buffer A = ir::Buffer::Declare("A", {256}, ir::kFloat32);
  ir::Buffer B = ir::Buffer::Declare("B", {768}, ir::kFloat32);
  Var t("t"), n("n");
  ir::Expr deep = t;
  for (int k = 0; k < 16; ++k) deep = (deep * 5 + deep + 3) % 256;
  const ir::Expr index = (t * 37 + (t / 3) * 11 + 5) % 256;
  auto a = [&](const ir::Expr& i) { return ir::BufferLoad(A, {i}); };
  const ir::Expr guarded =
      ir::Call(ir::kFloat32, ir::Intrinsic::kIfThenElse, {t < 200, a(index) * 2.0f, a(index / n)});
  const ir::Expr divided = ir::Select(n != 0, ir::Cast(ir::kFloat32, index / n), 0.0f);
  ir::Stmt body = ir::SeqStmt({
      ir::BufferStore(B, a(deep), {t}),
      ir::IfThenElse(t < 128, ir::BufferStore(B, a(index), {t + 256}),
                     ir::BufferStore(B, guarded, {t + 256})),
      ir::BufferStore(B, a(index) + divided, {t + 512}),
  });
  GpuKernel g;
  g.func = ir::PrimFunc("index_reuse", {A->data, B->data, n}, {A, B},
                        ir::For(t, 0, 256, ir::ForKind::kThreadBinding, body, "threadIdx.x"));
  g.tensor_shapes = {{256}, {768}};
  g.scalars = {7};
  g.threads = 256;
  return g;
}

absl::StatusOr<std::vector<GpuKernel>> AllGpuKernels() {
  std::vector<GpuKernel> all;
  for (auto make : {VectorAdd, SharedMatmul, RowSumExp, Float4Scale, VthreadAffine, IndexReuse}) {
    TESSEL_ASSIGN_OR_RETURN(GpuKernel k, make());
    all.push_back(std::move(k));
  }
  return all;
}

absl::StatusOr<ir::PrimFunc> UnboundLoops() {
  Tensor A = te::placeholder({256}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {256}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = schedule::create_schedule({B.op()});
  return transforms::Lower(s, {A, B}, "unbound");
}

absl::StatusOr<ir::PrimFunc> TooManyThreads() {
  Tensor A = te::placeholder({8192}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {8192}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = schedule::create_schedule({B.op()});
  TESSEL_ASSIGN_OR_RETURN(auto i, s[B].split(Axes(B)[0], 2048));
  TESSEL_RETURN_IF_ERROR(s[B].bind(i.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[B].bind(i.inner, "threadIdx.x"));
  return transforms::Lower(s, {A, B}, "too_many_threads");
}

absl::StatusOr<ir::PrimFunc> BoundTo(int n, int inner, const std::string& block_tag,
                                     const std::string& thread_tag) {
  Tensor A = te::placeholder({n}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {n}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = schedule::create_schedule({B.op()});
  TESSEL_ASSIGN_OR_RETURN(auto i, s[B].split(Axes(B)[0], inner));
  TESSEL_RETURN_IF_ERROR(s[B].bind(i.outer, block_tag));
  TESSEL_RETURN_IF_ERROR(s[B].bind(i.inner, thread_tag));
  return transforms::Lower(s, {A, B}, "bound_to");
}

absl::StatusOr<ir::PrimFunc> TooMuchSharedMemory() {
  const int n = 65536, tile = 16384;  // a 64 KiB float tile per block
  Tensor A = te::placeholder({n}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {n}, [&](Var i) { return A(i) * 3.0f; }, "B");
  Schedule s = schedule::create_schedule({B.op()});
  TESSEL_ASSIGN_OR_RETURN(Tensor AS, s.cache_read(A, "shared", {B.op()}));
  TESSEL_ASSIGN_OR_RETURN(auto b, s[B].split(Axes(B)[0], tile));
  TESSEL_ASSIGN_OR_RETURN(auto t, s[B].split(b.inner, 256));
  TESSEL_RETURN_IF_ERROR(s[B].bind(b.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[B].bind(t.inner, "threadIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[AS].compute_at(s[B], b.outer));
  TESSEL_ASSIGN_OR_RETURN(auto f, s[AS].split(Axes(AS)[0], 256));
  TESSEL_RETURN_IF_ERROR(s[AS].bind(f.inner, "threadIdx.x"));
  return transforms::Lower(s, {A, B}, "too_much_shared");
}

absl::StatusOr<GpuKernel> ThreadsPerBlock(int threads) {
  const int n = 8192;
  Tensor A = te::placeholder({n}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {n}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = schedule::create_schedule({B.op()});
  TESSEL_ASSIGN_OR_RETURN(auto i, s[B].split(Axes(B)[0], threads));
  TESSEL_RETURN_IF_ERROR(s[B].bind(i.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[B].bind(i.inner, "threadIdx.x"));
  GpuKernel g;
  TESSEL_ASSIGN_OR_RETURN(g.func, transforms::Lower(s, {A, B}, "block_" + std::to_string(threads)));
  g.tensor_shapes = {{n}, {n}};
  g.threads = threads;
  return g;
}

absl::StatusOr<GpuKernel> StagedTile(int tile) {
  const int n = 4 * tile, threads = 256;
  Tensor A = te::placeholder({n}, ir::kFloat32, "A");
  Tensor B = te::compute(
      {n}, [&](Var i) { return A(i) * 3.0f; }, "B");
  Schedule s = schedule::create_schedule({B.op()});
  TESSEL_ASSIGN_OR_RETURN(Tensor AS, s.cache_read(A, "shared", {B.op()}));
  TESSEL_ASSIGN_OR_RETURN(auto b, s[B].split(Axes(B)[0], tile));
  TESSEL_ASSIGN_OR_RETURN(auto t, s[B].split(b.inner, threads));
  TESSEL_RETURN_IF_ERROR(s[B].bind(b.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[B].bind(t.inner, "threadIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[AS].compute_at(s[B], b.outer));
  TESSEL_ASSIGN_OR_RETURN(auto f, s[AS].split(Axes(AS)[0], threads));
  TESSEL_RETURN_IF_ERROR(s[AS].bind(f.inner, "threadIdx.x"));
  GpuKernel g;
  TESSEL_ASSIGN_OR_RETURN(g.func, transforms::Lower(s, {A, B}, "staged_" + std::to_string(tile)));
  g.tensor_shapes = {{n}, {n}};
  g.shared_bytes = int64_t{tile} * 4;
  g.threads = threads;
  return g;
}

}  // namespace tessel::codegen::gpu::testing
