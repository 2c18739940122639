// dense_int8.x86: the int8 matrix product of OPERATORS.md (dense_int8) on the CPU, bit for bit
// what conv2d_int8.x86 computes for a 1x1 convolution: the same int32 sums, wrapped or
// requantized the same way. Any m, n, k >= 1.
//
// Compute, all in the logical layouts (data [m, k] int8, weight [n, k] int8, bias [n] int32):
//   partial [m, n, L] int32: lane l sums int32(data[m, i]) * int32(weight[n, i]) over the
//           i = o * L + l < k (o in [0, ceil(k / L))): L independent chains along k, each lane a
//           contiguous load of both rows; int32 arithmetic wraps (ir/node.h)
//   acc     [m, n] int32: the sum of the L lanes. Wrapping addition is associative, so the
//           lanes' order gives the sequential sum's bits exactly
//   out     [m, n] int8: with `shift`, clip((acc + bias[n]) >> shift, -127 or with `relu` 0,
//           127), the shift arithmetic (rounding toward minus infinity); without it, the low 8
//           bits of acc (an integer narrowing cast truncates)
//
// Knobs:
//   tile_m   split of m: [m / mt, mt], mt rows per register tile (unrolled)
//   tile_n   split of n: [n / nt, nt], nt weight rows per register tile (unrolled)
//   lanes_k  L, the int32 lanes per output along k: one, two or four vectors
//   (filter: the tile's mt x nt x L accumulators fit the vector registers)
// Loop nest: parallel over the tiles (m / mt, n / nt fused); in each, the partial sums
// (mt x nt x L int32, "local"): o, mt (unrolled), nt (unrolled), L (vectorized), the guarded
// last block split off when L does not divide k; then the lanes' sums and the outputs of the
// tile. The fallback: one vector of lanes, up to 4 rows, and as many weight rows (divisors of n)
// as keep 3/8 of the vector registers as accumulators.
#include <algorithm>
#include <optional>

#include "compiler/ir/op.h"
#include "compiler/ops/logical_op.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/requantize.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/ops/x86/conv2d_nchwc_schedule.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::x86 {
namespace {

using ir::Expr;
using ir::Var;
using nn::Axes;
using nn::Dim;
using schedule::Stage;

constexpr char kName[] = "dense_int8.x86";

int64_t Lanes(const target::TargetFacts& facts) { return std::max(facts.lanes(), 4); }

struct DenseInt8 {
  te::Tensor data, weight, bias, partial, acc, out;  // bias: only with requantize
};

DenseInt8 MakeDenseInt8(const nn::DenseInt8Args& a, int64_t lanes) {
  const ir::DataType int8 = ir::DataType::Int(8);
  DenseInt8 d;
  d.data = te::placeholder({Dim(a.m), Dim(a.k)}, int8, "data");
  d.weight = te::placeholder({Dim(a.n), Dim(a.k)}, int8, "weight");
  const ir::IterVar o = te::reduce_axis({Dim(0), Dim((a.k + lanes - 1) / lanes)}, "o");
  d.partial = te::compute({Dim(a.m), Dim(a.n), Dim(lanes)},
                          [&](Var i, Var j, Var l) {
                            const Expr index = o->var * Dim(lanes) + l;
                            Expr where;
                            if (a.k % lanes != 0) where = index < Dim(a.k);
                            const Expr product = ir::cast(ir::kInt32, d.data(i, index)) *
                                                 ir::cast(ir::kInt32, d.weight(j, index));
                            return te::sum(product, {o}, where);
                          },
                          "partial", {"m", "n", "l"});
  const ir::IterVar l = te::reduce_axis({Dim(0), Dim(lanes)}, "rl");
  d.acc = te::compute({Dim(a.m), Dim(a.n)},
                      [&](Var i, Var j) { return te::sum(d.partial(i, j, l->var), {l}); }, "acc",
                      {"m", "n"});
  const std::optional<nn::Requantize>& rq = a.requantize;
  if (rq) d.bias = te::placeholder({Dim(a.n)}, ir::kInt32, "bias");
  d.out = te::compute(
      {Dim(a.m), Dim(a.n)},
      [&](Var i, Var j) {
        if (!rq) return ir::cast(int8, d.acc(i, j));
        const Expr shifted = ir::shift_right(d.acc(i, j) + d.bias(j), Dim(rq->shift));
        return ir::cast(int8, ir::max(ir::min(shifted, Dim(127)), Dim(rq->relu ? 0 : -127)));
      },
      "dense_int8", {"m", "n"});
  return d;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const nn::DenseInt8Args a, nn::ReadDenseInt8Args(kName, args));
  search::ConfigSpace space;
  space.define_split(
      "tile_m", a.m,
      {.policy = search::SplitPolicy::kFactors, .num_outputs = 2, .max_innermost = 4});
  space.define_split(
      "tile_n", a.n,
      {.policy = search::SplitPolicy::kFactors, .num_outputs = 2, .max_innermost = 16});
  const int64_t lanes = Lanes(facts);
  space.define_knob("lanes_k", {lanes, 2 * lanes, 4 * lanes});
  const int64_t register_lanes = lanes * facts.vector_registers;
  space.AddFilter(
      "accumulators fit the vector registers", [register_lanes](const search::Config& c) {
        return c.split("tile_m")[1] * c.split("tile_n")[1] * c.knob("lanes_k") <= register_lanes;
      });
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::DenseInt8Args a = *nn::ReadDenseInt8Args(kName, args);  // Space has read them
  const int64_t mt = LargestDivisorAtMost(a.m, 4);
  const int64_t budget = std::max<int64_t>(1, facts.vector_registers * 3 / 8 / mt);
  const int64_t nt = LargestDivisorAtMost(a.n, budget);
  return ConfigFromKnobs(
      space, {{"tile_m", {a.m / mt, mt}}, {"tile_n", {a.n / nt, nt}}, {"lanes_k", Lanes(facts)}});
}

absl::Status Apply(schedule::Schedule& s, const DenseInt8& d, const search::Config& config) {
  Stage out = s[d.out];
  const auto& oa = Axes(d.out);  // m, n
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult m,
                          out.split(oa[0], static_cast<int>(config.split("tile_m")[1])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult n,
                          out.split(oa[1], static_cast<int>(config.split("tile_n")[1])));
  TESSEL_RETURN_IF_ERROR(out.reorder({m.outer, n.outer, m.inner, n.inner}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar tiles, out.fuse(m.outer, n.outer));
  TESSEL_RETURN_IF_ERROR(out.parallel(tiles));

  Stage acc = s[d.acc];
  TESSEL_RETURN_IF_ERROR(acc.set_scope("local"));
  TESSEL_RETURN_IF_ERROR(acc.compute_at(out, tiles));

  Stage partial = s[d.partial];
  TESSEL_RETURN_IF_ERROR(partial.set_scope("local"));
  TESSEL_RETURN_IF_ERROR(partial.compute_at(out, tiles));
  const auto& pa = Axes(d.partial);  // m, n, l: here mt x nt x L
  const ir::IterVar& o = d.partial.op().as<te::ComputeOpNode>()->reduce_axis[0];
  TESSEL_RETURN_IF_ERROR(partial.reorder({o, pa[0], pa[1], pa[2]}));
  TESSEL_RETURN_IF_ERROR(partial.unroll(pa[0]));
  TESSEL_RETURN_IF_ERROR(partial.unroll(pa[1]));
  TESSEL_RETURN_IF_ERROR(partial.vectorize(pa[2]));
  return absl::OkStatus();
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(const nn::DenseInt8Args a, nn::ReadDenseInt8Args(kName, args));
  const DenseInt8 d = MakeDenseInt8(a, config.knob("lanes_k"));
  OpProgram p;
  p.schedule = schedule::create_schedule({d.out.op()});
  TESSEL_RETURN_IF_ERROR(Apply(p.schedule, d, config));
  p.args = {d.data, d.weight};
  if (a.requantize) p.args.push_back(d.bias);
  p.args.push_back(d.out);
  p.flops = 2.0 * static_cast<double>(a.m) * static_cast<double>(a.n) * static_cast<double>(a.k);
  SetLogicalSignature(p, DenseInt8Signature(a.m, a.n, a.k, a.requantize.has_value()));
  return p;
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("cpu", (Template{.name = kName,
                                          .op = "dense_int8",
                                          .summary = "int8 dense, requantized or wrapped to int8: "
                                                     "rows x weight rows tile, k in vector lanes",
                                          .space = Space,
                                          .fallback = Fallback,
                                          .instantiate = Instantiate}));

}  // namespace tessel::ops::x86
