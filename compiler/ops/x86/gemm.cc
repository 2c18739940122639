#include "compiler/ops/nn/shape.h"
#include "compiler/ops/x86/gemm.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::x86 {
namespace {

using nn::Dim;
using nn::Axes;

using ir::Expr;
using ir::Var;

// A shape entry: int32, as index arithmetic is.
}  // namespace

GemmTiling DefaultGemmTiling(int vector_bits) {
  GemmTiling t;
  const int lanes = std::max(vector_bits / 32, 4);
  t.nr = 2 * lanes;
  // Accumulators (mr x 2 vectors) plus two B vectors and a broadcast must fit the registers:
  // 32 vector registers with AVX-512, 16 otherwise.
  t.mr = vector_bits >= 512 ? 8 : 4;
  return t;
}

GemmProgram GemmDefault(int64_t m, int64_t n, int64_t k) {
  te::Tensor a = te::placeholder({Dim(m), Dim(k)}, ir::kFloat32, "A");
  te::Tensor b = te::placeholder({Dim(k), Dim(n)}, ir::kFloat32, "B");
  ir::IterVar r = te::reduce_axis({0, Dim(k)}, "k");
  te::Tensor c = te::compute(
      {Dim(m), Dim(n)}, [&](Var i, Var j) { return te::sum(a(i, r) * b(r, j), {r}); }, "C");
  return {schedule::create_schedule({c.op()}), {a, b, c}};
}

absl::StatusOr<GemmProgram> GemmBlocked(int64_t m, int64_t n, int64_t k, const GemmTiling& t) {
  if (t.mr < 1 || t.nr < 1 || t.kc < 0) {
    return absl::InvalidArgumentError(absl::StrCat("invalid GEMM tiling mr=", t.mr, " nr=", t.nr,
                                                   " kc=", t.kc, ": sizes must be positive"));
  }
  const int64_t nr = t.nr;
  const int64_t panels = (n + nr - 1) / nr;
  te::Tensor a = te::placeholder({Dim(m), Dim(k)}, ir::kFloat32, "A");
  te::Tensor b = te::placeholder({Dim(k), Dim(n)}, ir::kFloat32, "B");
  // B in column panels, zero past the last column.
  te::Tensor packed =
      te::compute({Dim(panels), Dim(k), Dim(nr)},
                  [&](Var jo, Var kk, Var ji) {
                    Expr col = jo * static_cast<int>(nr) + ji;
                    if (n % nr == 0) return b(kk, col);
                    return ir::if_then_else(col < static_cast<int>(n), b(kk, col), 0.0f);
                  },
                  "packedB", {"jo", "k", "ji"});
  ir::IterVar r = te::reduce_axis({0, Dim(k)}, "k");
  te::Tensor c = te::compute(
      {Dim(m), Dim(n)},
      [&](Var i, Var j) {
        return te::sum(a(i, r) * packed(j / static_cast<int>(nr), r, j % static_cast<int>(nr)),
                       {r});
      },
      "C");
  schedule::Schedule s = schedule::create_schedule({c.op()});

  // Packing: panels in parallel, columns vectorized.
  const auto& pa = Axes(packed);
  if (t.parallel) TESSEL_RETURN_IF_ERROR(s[packed].parallel(pa[0]));
  TESSEL_RETURN_IF_ERROR(s[packed].vectorize(pa[2]));

  // C in mr x nr tiles; panels outermost (in parallel) so each packed panel is reused across rows.
  absl::StatusOr<te::Tensor> acc = s.cache_write(c, "local");
  if (!acc.ok()) return acc.status();
  const auto& ca = Axes(c);
  auto tile = s[c].tile(ca[0], ca[1], t.mr, static_cast<int>(nr));
  if (!tile.ok()) return tile.status();
  TESSEL_RETURN_IF_ERROR(
      s[c].reorder({tile->y_outer, tile->x_outer, tile->x_inner, tile->y_inner}));
  if (t.parallel) TESSEL_RETURN_IF_ERROR(s[c].parallel(tile->y_outer));
  TESSEL_RETURN_IF_ERROR(s[c].vectorize(tile->y_inner));
  TESSEL_RETURN_IF_ERROR(s[*acc].compute_at(s[c], tile->x_outer));

  // The register tile: k outermost, rows unrolled, columns vectorized.
  const te::ComputeOpNode* acc_op = acc->op().as<te::ComputeOpNode>();
  const ir::IterVar& ai = acc_op->axis[0];
  const ir::IterVar& aj = acc_op->axis[1];
  const ir::IterVar& ak = acc_op->reduce_axis[0];
  if (t.kc > 0) {
    auto kb = s[*acc].split(ak, t.kc);
    if (!kb.ok()) return kb.status();
    TESSEL_RETURN_IF_ERROR(s[*acc].reorder({kb->outer, kb->inner, ai, aj}));
  } else {
    TESSEL_RETURN_IF_ERROR(s[*acc].reorder({ak, ai, aj}));
  }
  TESSEL_RETURN_IF_ERROR(s[*acc].unroll(ai));
  TESSEL_RETURN_IF_ERROR(s[*acc].vectorize(aj));
  return GemmProgram{s, {a, b, c}};
}

}  // namespace tessel::ops::x86
