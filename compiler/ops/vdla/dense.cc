#include "compiler/ops/vdla/dense.h"

#include <absl/strings/str_cat.h>

#include "compiler/codegen/vdla/intrinsics.h"
#include "compiler/ir/op.h"
#include "compiler/schedule/schedule.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::vdla {
namespace {

using codegen::vdla::kAccScope;
using codegen::vdla::kAlu;
using codegen::vdla::kDmaCopy;
using codegen::vdla::kInputScope;
using codegen::vdla::kWeightScope;
using te::Tensor;

absl::Status Check(const DenseShape& s, const DenseTiling& t, const hardware::vdla::Config& c) {
  auto refuse = [](const std::string& what) { return absl::InvalidArgumentError(what); };
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.m % c.batch != 0 || s.n % c.block_out != 0 ||
      s.k % c.block_in != 0) {
    return refuse(absl::StrCat("dense ", s.m, "x", s.n, "x", s.k,
                               " is not in blocks: m a multiple of ", c.batch, ", n of ",
                               c.block_out, ", k of ", c.block_in));
  }
  if (t.tile_m < 1 || t.tile_m % c.batch != 0 || s.m % t.tile_m != 0) {
    return refuse(absl::StrCat("tile_m ", t.tile_m, " does not divide the ", s.m,
                               " rows in multiples of the batch ", c.batch));
  }
  if (t.tile_n < 1 || (s.n / c.block_out) % t.tile_n != 0) {
    return refuse(absl::StrCat("tile_n ", t.tile_n, " does not divide the ", s.n / c.block_out,
                               " output column blocks"));
  }
  const int tiles = t.vthreads_over_columns ? s.n / c.block_out / t.tile_n : s.m / t.tile_m;
  if (t.vthreads < 1 || tiles % t.vthreads != 0) {
    return refuse(absl::StrCat("vthreads ", t.vthreads, " does not divide the ", tiles,
                               t.vthreads_over_columns ? " column tiles" : " row tiles"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DenseSchedule> ScheduleDense(const DenseShape& d, const DenseTiling& t,
                                            const hardware::vdla::Config& c,
                                            std::optional<DenseTail> tail) {
  TESSEL_RETURN_IF_ERROR(Check(d, t, c));
  if (tail && (tail->shift < 0 || tail->shift > 31)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the tail's shift ", tail->shift, " is not between 0 and 31"));
  }
  const ir::DataType int8 = ir::DataType::Int(8);
  const int mo = d.m / c.batch, no = d.n / c.block_out, ko = d.k / c.block_in;
  Tensor data = te::placeholder({mo, ko, c.batch, c.block_in}, int8, "data");
  Tensor weight = te::placeholder({no, ko, c.block_out, c.block_in}, int8, "weight");
  ir::IterVar rko = te::reduce_axis({0, ko}, "rko");
  ir::IterVar rki = te::reduce_axis({0, c.block_in}, "rki");
  const std::vector<ir::Expr> out_shape = {mo, no, c.batch, c.block_out};
  Tensor acc = te::compute(
      out_shape,
      [&](const std::vector<ir::Var>& i) {
        return te::sum(ir::cast(ir::kInt32, data(i[0], rko, i[2], rki)) *
                           ir::cast(ir::kInt32, weight(i[1], rko, i[3], rki)),
                       {rko, rki});
      },
      "acc");
  Tensor bias = te::placeholder({no, c.batch, c.block_out}, ir::kInt32, "bias");
  Tensor res = te::compute(
      out_shape,
      [&](const std::vector<ir::Var>& i) {
        ir::Expr shifted = ir::shift_right(acc(i[0], i[1], i[2], i[3]) + bias(i[1], i[2], i[3]),
                                           tail ? tail->shift : 0);
        return ir::max(ir::min(shifted, 127), tail && tail->relu ? 0 : -127);
      },
      "res");
  const Tensor last = tail ? res : acc;
  Tensor out = te::compute(
      out_shape,
      [&](const std::vector<ir::Var>& i) { return ir::cast(int8, last(i[0], i[1], i[2], i[3])); },
      "out");

  schedule::Schedule s = schedule::create_schedule({out.op()});
  TESSEL_RETURN_IF_ERROR(s[acc].set_scope(kAccScope));
  std::optional<Tensor> bias_buf;
  if (tail) {
    TESSEL_RETURN_IF_ERROR(s[res].set_scope(kAccScope));
    TESSEL_ASSIGN_OR_RETURN(bias_buf, s.cache_read(bias, kAccScope, {res.op()}));
  }
  TESSEL_ASSIGN_OR_RETURN(Tensor data_buf, s.cache_read(data, kInputScope, {acc.op()}));
  TESSEL_ASSIGN_OR_RETURN(Tensor weight_buf, s.cache_read(weight, kWeightScope, {acc.op()}));
  const auto& oaxis = out.op().as<te::ComputeOpNode>()->axis;
  TESSEL_ASSIGN_OR_RETURN(auto mt, s[out].split(oaxis[0], t.tile_m / c.batch));
  TESSEL_ASSIGN_OR_RETURN(auto nt, s[out].split(oaxis[1], t.tile_n));
  TESSEL_RETURN_IF_ERROR(
      s[out].reorder({mt.outer, nt.outer, mt.inner, nt.inner, oaxis[2], oaxis[3]}));
  ir::IterVar tile = nt.outer;  // the innermost loop over tiles, where a tile is computed
  if (t.vthreads > 1) {
    const ir::IterVar spread = t.vthreads_over_columns ? nt.outer : mt.outer;
    TESSEL_ASSIGN_OR_RETURN(auto vt, s[out].split_nparts(spread, t.vthreads));
    TESSEL_RETURN_IF_ERROR(s[out].bind(vt.outer, "vthread"));
    if (t.vthreads_over_columns) tile = vt.inner;
  }
  if (tail) {
    // The tail first: the accumulators are computed at the output's tile for the tail there.
    TESSEL_RETURN_IF_ERROR(s[res].compute_at(s[out], tile));
    TESSEL_RETURN_IF_ERROR(s[*bias_buf].compute_at(s[out], tile));
    TESSEL_RETURN_IF_ERROR(s[res].pragma(res.op().as<te::ComputeOpNode>()->axis[0], kAlu));
    TESSEL_RETURN_IF_ERROR(
        s[*bias_buf].pragma(bias_buf->op().as<te::ComputeOpNode>()->axis[0], kDmaCopy));
  }
  TESSEL_RETURN_IF_ERROR(s[acc].compute_at(s[out], tile));
  const auto& a = acc.op().as<te::ComputeOpNode>()->axis;
  TESSEL_RETURN_IF_ERROR(s[acc].reorder({rko, a[0], a[1], a[2], a[3], rki}));
  TESSEL_RETURN_IF_ERROR(s[data_buf].compute_at(s[acc], rko));
  TESSEL_RETURN_IF_ERROR(s[weight_buf].compute_at(s[acc], rko));
  if (t.double_buffer_weights) TESSEL_RETURN_IF_ERROR(s[weight_buf].double_buffer());
  TESSEL_RETURN_IF_ERROR(s[acc].tensorize(a[2], codegen::vdla::GemmIntrin(c)));
  TESSEL_RETURN_IF_ERROR(
      s[data_buf].pragma(data_buf.op().as<te::ComputeOpNode>()->axis[0], kDmaCopy));
  TESSEL_RETURN_IF_ERROR(
      s[weight_buf].pragma(weight_buf.op().as<te::ComputeOpNode>()->axis[0], kDmaCopy));
  TESSEL_RETURN_IF_ERROR(s[out].pragma(mt.inner, kDmaCopy));
  if (tail) return DenseSchedule{s, {data, weight, bias, out}};
  return DenseSchedule{s, {data, weight, out}};
}

absl::StatusOr<ir::PrimFunc> LowerDense(const DenseShape& shape, const DenseTiling& tiling,
                                        const hardware::vdla::Config& config,
                                        std::optional<DenseTail> tail) {
  TESSEL_ASSIGN_OR_RETURN(DenseSchedule s, ScheduleDense(shape, tiling, config, tail));
  return transforms::Lower(s.schedule, s.args, "dense");
}

}  // namespace tessel::ops::vdla
