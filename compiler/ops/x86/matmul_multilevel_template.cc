// dense_multilevel.x86 and batch_matmul_multilevel.x86: matrix products with the whole
// multi-level tiling decision as knobs (multilevel_tiling.h), the counterpart of
// conv2d_multilevel.x86 for dense and batch_matmul. The register-tile templates (matrix_tiles.h)
// fix the loop structure; here it is searched.
//
// dense: out[m, n] = sum_k data[m, k] * weight[n, k] (+ bias[n]), the weight packed by prepare
// into panels [n / nb, k, nb] (a constant in a graph). batch_matmul: out[b, m, n] = sum_k
// a[b, m, k] * b[b, k, n], b read in place (its rows are contiguous in n, so an nb-wide vector of
// a row is one load). Knobs, in declaration order:
//   tile_m       split of m into 4: [m0, m1, m2, m3]
//   tile_n       split of n into 5: [n0, n1, n2, n3, nb]; nb is vectorized (and dense's panel)
//   tile_k       split of k into 2: [k0, k1]
//   reorder_inner  the order of (k1, m3, n3), the loops around the vector nb
//   unroll_depth   how many of the loops just outside nb are unrolled (0-3)
//   parallel_depth 1: the batch (if any) and m0 run in parallel; 2: n0 too
//   acc_at       where the accumulators are computed: 1 for the tile of levels 2 and 3 (inside
//                n1), 2 for the level-3 tile (inside n2)
// Loop nest of the output: (b) m0 n0 | m1 n1 | m2 n2 | m3 n3 nb; the accumulators inside level
// acc_at's last loop: k0, the level-2 tile when acc_at is 1, then reorder_inner's loops and nb.
#include "compiler/ops/nn/batch_matmul.h"
#include "compiler/ops/nn/dense.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/ops/x86/conv2d_nchwc_schedule.h"
#include "compiler/ops/x86/multilevel_tiling.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/operation.h"

namespace tessel::ops::x86 {
namespace {

using nn::Dim;
using schedule::Stage;

struct MatmulLevels {
  std::vector<int64_t> m, n, k;  // split parts, outermost first
  std::vector<int> inner_order;  // a permutation of {0: k1, 1: m3, 2: n3}
  int unroll_depth = 0, parallel_depth = 1, acc_at = 2;

  int64_t nb() const { return n.back(); }
};

MatmulLevels ReadLevels(const search::Config& c) {
  MatmulLevels l;
  l.m = c.split("tile_m");
  l.n = c.split("tile_n");
  l.k = c.split("tile_k");
  l.inner_order = c.reorder("reorder_inner");
  l.unroll_depth = static_cast<int>(c.knob("unroll_depth"));
  l.parallel_depth = static_cast<int>(c.knob("parallel_depth"));
  l.acc_at = static_cast<int>(c.knob("acc_at"));
  return l;
}

// The extents of the loops just outside nb, innermost first (what unroll_depth counts).
std::vector<int64_t> UnrollCandidates(const MatmulLevels& l) {
  const int64_t extents[] = {l.k[1], l.m[3], l.n[3]};
  return {extents[l.inner_order[2]], extents[l.inner_order[1]], extents[l.inner_order[0]]};
}

int64_t AccumulatorBytes(const MatmulLevels& l) {
  int64_t elements = l.m[3] * l.n[3] * l.nb();
  if (l.acc_at == 1) elements *= l.m[2] * l.n[2];
  return elements * 4;
}

void DefineSpace(search::ConfigSpace& space, int64_t m, int64_t n, int64_t k) {
  using search::SplitPolicy;
  space.define_split("tile_m", m, {.policy = SplitPolicy::kFactors, .num_outputs = 4});
  space.define_split("tile_n", n,
                     {.policy = SplitPolicy::kFactors, .num_outputs = 5, .max_innermost = 64});
  space.define_split("tile_k", k, {.policy = SplitPolicy::kFactors, .num_outputs = 2});
  space.define_reorder("reorder_inner", 3);
  space.define_knob("unroll_depth", {0, 1, 2, 3});
  space.define_knob("parallel_depth", {1, 2});
  space.define_knob("acc_at", {1, 2});
  // One filter reading the knobs once: sampling and neighbour moves call it on every point tried.
  space.AddFilter(
      "accumulators of at most 64 KiB, at most 512 unrolled copies", [](const search::Config& c) {
        const MatmulLevels l = ReadLevels(c);
        return AccumulatorBytes(l) <= kMaxAccumulatorBytes &&
               UnrolledCopies(UnrollCandidates(l), l.unroll_depth) <= kMaxUnrolledCopies;
      });
}

// The untuned choice, as the register-tile templates choose theirs: a vector block of up to two
// vectors of columns, as many rows (m3) and then column vectors (n3) as keep half the vector
// registers as accumulators, row blocks (and column blocks) in parallel, the whole reduction
// inside the accumulators with k outermost, the tile unrolled.
search::Config Fallback(const search::ConfigSpace& space, int64_t m, int64_t n, int64_t k,
                        const target::TargetFacts& facts) {
  const int64_t lanes = std::max(facts.lanes(), 4);
  const int64_t budget = std::max(facts.vector_registers / 2, 1);
  const int64_t nb = LargestDivisorAtMost(n, 2 * lanes);
  const int64_t vectors = (nb + lanes - 1) / lanes;
  const int64_t m3 = LargestDivisorAtMost(m, std::max<int64_t>(budget / vectors, 1));
  const int64_t n3 = LargestDivisorAtMost(n / nb, std::max<int64_t>(budget / (vectors * m3), 1));
  nlohmann::json knobs = {{"tile_m", {m / m3, 1, 1, m3}},
                          {"tile_n", {n / (nb * n3), 1, 1, n3, nb}},
                          {"tile_k", {1, k}},
                          {"reorder_inner", {0, 1, 2}},
                          {"unroll_depth", 2},
                          {"parallel_depth", 2},
                          {"acc_at", 2}};
  return ConfigFromKnobs(space, knobs);
}

// Schedules `stored` (the output, [batch,] m, n) with the accumulators of `product`, a
// reduction over one axis whose stage cache_write has not touched.
absl::Status Schedule(schedule::Schedule& s, const te::Tensor& product, const te::Tensor& stored,
                      const MatmulLevels& l) {
  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(product, "local"));
  if (!stored.op().same_as(product.op())) TESSEL_RETURN_IF_ERROR(s[product].compute_inline());
  Stage out = s[stored];
  const auto& oa = nn::Axes(stored);
  const bool batched = oa.size() == 3;
  TESSEL_ASSIGN_OR_RETURN(auto m, SplitLevels(out, oa[oa.size() - 2], l.m));
  TESSEL_ASSIGN_OR_RETURN(auto n, SplitLevels(out, oa.back(), l.n));
  std::vector<ir::IterVar> order;
  if (batched) order.push_back(oa[0]);
  for (int level = 0; level < 4; ++level) order.insert(order.end(), {m[level], n[level]});
  order.push_back(n[4]);
  TESSEL_RETURN_IF_ERROR(out.reorder(order));
  // m0 alone, or m0 and n0, with the batch in front when there is one.
  TESSEL_RETURN_IF_ERROR(
      FuseParallel(out, order, l.parallel_depth - 1 + (batched ? 1 : 0)).status());
  TESSEL_RETURN_IF_ERROR(out.vectorize(n[4]));
  const ir::IterVar at = n[l.acc_at];

  Stage cc = s[acc];
  TESSEL_RETURN_IF_ERROR(cc.compute_at(out, at));
  const te::ComputeOpNode* acc_op = acc.op().as<te::ComputeOpNode>();
  const auto& ca = acc_op->axis;
  const ir::IterVar rk = acc_op->reduce_axis[0];
  const size_t rows = ca.size() - 2;
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult am, cc.split(ca[rows], static_cast<int>(l.m[3])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult an,
                          cc.split(ca[rows + 1], static_cast<int>(l.n[3] * l.nb())));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult an3, cc.split(an.inner, static_cast<int>(l.nb())));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ak, cc.split(rk, static_cast<int>(l.k[1])));
  std::vector<ir::IterVar> acc_order(ca.begin(), ca.begin() + rows);
  acc_order.insert(acc_order.end(), {ak.outer, am.outer, an.outer});
  const ir::IterVar inner[] = {ak.inner, am.inner, an3.outer};
  for (int i : l.inner_order) acc_order.push_back(inner[i]);
  acc_order.push_back(an3.inner);
  TESSEL_RETURN_IF_ERROR(cc.reorder(acc_order));
  TESSEL_RETURN_IF_ERROR(cc.vectorize(an3.inner));
  for (int i = 0; i < l.unroll_depth; ++i) {
    TESSEL_RETURN_IF_ERROR(cc.unroll(acc_order[acc_order.size() - 2 - i]));
  }
  return absl::OkStatus();
}

// ---- dense_multilevel.x86 ----

constexpr char kDense[] = "dense_multilevel.x86";

absl::StatusOr<OpProgram> InstantiateDense(const search::Config& config, const OpArgs& args,
                                           const target::TargetFacts&, const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::DenseArgs a, nn::ReadDenseArgs(kDense, args));
  const MatmulLevels l = ReadLevels(config);
  const int64_t nb = l.nb(), panels = a.n / nb;
  te::Tensor data = te::placeholder({Dim(a.m), Dim(a.k)}, ir::kFloat32, "data");
  te::Tensor packed = te::placeholder({Dim(panels), Dim(a.k), Dim(nb)}, ir::kFloat32, "weight");
  te::Tensor bias;
  if (a.bias) bias = te::placeholder({Dim(a.n)}, ir::kFloat32, "bias");
  te::Tensor product = nn::DensePacked(data, packed, a.n, "dense_acc");
  te::Tensor out = a.bias ? nn::CropBias(product, {a.m, a.n}, bias, "dense") : product;
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  if (!stored.op().same_as(out.op()) && !out.op().same_as(product.op())) {
    TESSEL_RETURN_IF_ERROR(p.schedule[out].compute_inline());
  }
  TESSEL_RETURN_IF_ERROR(Schedule(p.schedule, product, stored, l));
  SetDenseSignature(p, a, data, packed, bias, stored);
  p.prepare = [nb, panels](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    std::vector<runtime::NDArray> out = in;
    out[1] = nn::PackRowPanels(in[1], nb, panels);
    return out;
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template MakeDense() {
  return TailFusingTemplate(
      kDense, "dense", "dense, every loop tiled in levels: the whole tiling decision searched",
      [](const OpArgs& args, const target::TargetFacts&) -> absl::StatusOr<search::ConfigSpace> {
        TESSEL_ASSIGN_OR_RETURN(nn::DenseArgs a, nn::ReadDenseArgs(kDense, args));
        search::ConfigSpace space;
        DefineSpace(space, a.m, a.n, a.k);
        return space;
      },
      [](const search::ConfigSpace& space, const OpArgs& args, const target::TargetFacts& facts) {
        const nn::DenseArgs a = *nn::ReadDenseArgs(kDense, args);
        return Fallback(space, a.m, a.n, a.k, facts);
      },
      InstantiateDense);
}

// ---- batch_matmul_multilevel.x86 ----

constexpr char kBatchMatmul[] = "batch_matmul_multilevel.x86";

absl::StatusOr<OpProgram> InstantiateBatchMatmul(const search::Config& config, const OpArgs& args,
                                                 const target::TargetFacts&,
                                                 const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::MatmulArgs a, nn::ReadMatmulArgs(kBatchMatmul, true, args));
  const MatmulLevels l = ReadLevels(config);
  te::Tensor A = te::placeholder({Dim(a.batch), Dim(a.m), Dim(a.k)}, ir::kFloat32, "A");
  te::Tensor B = te::placeholder({Dim(a.batch), Dim(a.k), Dim(a.n)}, ir::kFloat32, "B");
  te::Tensor product = nn::BatchMatmul(A, B, "matmul");
  te::Tensor stored = product;
  if (tail != nullptr) {
    stored = ApplyTail(product, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(Schedule(p.schedule, product, stored, l));
  p.args = {A, B, stored};
  p.flops = 2.0 * a.batch * a.m * a.n * a.k;
  p.logical_inputs = {{"A", {a.batch, a.m, a.k}}, {"B", {a.batch, a.k, a.n}}};
  p.logical_outputs = {{"out", {a.batch, a.m, a.n}}};
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template MakeBatchMatmul() {
  return TailFusingTemplate(
      kBatchMatmul, "batch_matmul",
      "batch_matmul, every loop tiled in levels: the whole tiling decision searched",
      [](const OpArgs& args, const target::TargetFacts&) -> absl::StatusOr<search::ConfigSpace> {
        TESSEL_ASSIGN_OR_RETURN(nn::MatmulArgs a, nn::ReadMatmulArgs(kBatchMatmul, true, args));
        search::ConfigSpace space;
        DefineSpace(space, a.m, a.n, a.k);
        return space;
      },
      [](const search::ConfigSpace& space, const OpArgs& args, const target::TargetFacts& facts) {
        const nn::MatmulArgs a = *nn::ReadMatmulArgs(kBatchMatmul, true, args);
        return Fallback(space, a.m, a.n, a.k, facts);
      },
      InstantiateBatchMatmul);
}

TESSEL_REGISTER_TEMPLATE("cpu", MakeDense());
TESSEL_REGISTER_TEMPLATE("cpu", MakeBatchMatmul());

}  // namespace
}  // namespace tessel::ops::x86
