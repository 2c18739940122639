#include "compiler/ops/cuda/matmul_kernel.h"

#include <absl/strings/str_cat.h>

#include "compiler/schedule/schedule.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::cuda {
namespace {

using schedule::Schedule;
using te::Tensor;

const std::vector<ir::IterVar>& Axes(const Tensor& t) {
  return t.op().as<te::ComputeOpNode>()->axis;
}

// Spreads the copy into a 2-D shared tile over the block's ty x tx threads: the tile's axes
// fused, consecutive elements on consecutive threadIdx.x (coalesced reads).
absl::Status CooperativeFetch(Schedule& s, const Tensor& staged, int ty, int tx) {
  const auto& axes = Axes(staged);
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar fused, s[staged].fuse(axes[0], axes[1]));
  TESSEL_ASSIGN_OR_RETURN(auto x, s[staged].split(fused, tx));
  TESSEL_ASSIGN_OR_RETURN(auto y, s[staged].split(x.outer, ty));
  TESSEL_RETURN_IF_ERROR(s[staged].bind(y.inner, "threadIdx.y"));
  return s[staged].bind(x.inner, "threadIdx.x");
}

absl::Status CheckOptions(const MatmulKernelOptions& o) {
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("matmul kernel n=", o.n, " tile=", o.tile,
                                                   " threads=", o.threads, " step=", o.step,
                                                   ": ", what));
  };
  if (o.n < 1 || o.tile < 1 || o.threads < 1 || o.step < 1) return bad("all must be >= 1");
  if (o.n % o.tile != 0) return bad("tile must divide n");
  if (o.tile % o.threads != 0) return bad("threads must divide tile");
  if (o.n % o.step != 0) return bad("step must divide n");
  if (o.cooperative && (o.tile * o.step) % (o.threads * o.threads) != 0) {
    return bad("a shared tile (tile x step) must be a whole number of copies by the block");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ir::PrimFunc> MatmulKernel(const MatmulKernelOptions& o, const std::string& name) {
  TESSEL_RETURN_IF_ERROR(CheckOptions(o));
  Tensor A = te::placeholder({o.n, o.n}, ir::kFloat32, "A");
  Tensor B = te::placeholder({o.n, o.n}, ir::kFloat32, "B");
  ir::IterVar k = te::reduce_axis({0, o.n}, "k");
  Tensor C = te::compute(
      {o.n, o.n}, [&](ir::Var i, ir::Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = schedule::create_schedule({C.op()});
  TESSEL_ASSIGN_OR_RETURN(Tensor CL, s.cache_write(C, "local"));
  Tensor AS, BS;
  if (o.cooperative) {
    TESSEL_ASSIGN_OR_RETURN(AS, s.cache_read(A, "shared", {CL.op()}));
    TESSEL_ASSIGN_OR_RETURN(BS, s.cache_read(B, "shared", {CL.op()}));
  }
  TESSEL_ASSIGN_OR_RETURN(auto t, s[C].tile(Axes(C)[0], Axes(C)[1], o.tile, o.tile));
  TESSEL_ASSIGN_OR_RETURN(auto ty, s[C].split_nparts(t.x_inner, o.threads));
  TESSEL_ASSIGN_OR_RETURN(auto tx, s[C].split_nparts(t.y_inner, o.threads));
  TESSEL_RETURN_IF_ERROR(
      s[C].reorder({t.x_outer, t.y_outer, ty.outer, tx.outer, ty.inner, tx.inner}));
  TESSEL_RETURN_IF_ERROR(s[C].bind(t.x_outer, "blockIdx.y"));
  TESSEL_RETURN_IF_ERROR(s[C].bind(t.y_outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(s[C].bind(ty.outer, "threadIdx.y"));
  TESSEL_RETURN_IF_ERROR(s[C].bind(tx.outer, "threadIdx.x"));
  // Each thread's block of C accumulates in registers, k outermost in steps.
  TESSEL_RETURN_IF_ERROR(s[CL].compute_at(s[C], tx.outer));
  TESSEL_ASSIGN_OR_RETURN(auto ks, s[CL].split(k, o.step));
  const auto& cl_axes = Axes(CL);
  TESSEL_RETURN_IF_ERROR(s[CL].reorder({ks.outer, ks.inner, cl_axes[0], cl_axes[1]}));
  if (o.cooperative) {
    for (const Tensor& staged : {AS, BS}) {
      TESSEL_RETURN_IF_ERROR(s[staged].compute_at(s[CL], ks.outer));
      TESSEL_RETURN_IF_ERROR(CooperativeFetch(s, staged, o.threads, o.threads));
    }
  }
  return transforms::Lower(s, {A, B, C}, name);
}

}  // namespace tessel::ops::cuda
