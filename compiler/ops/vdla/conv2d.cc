#include "compiler/ops/vdla/conv2d.h"

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

absl::Status Check(const Conv2dShape& s, const Conv2dTiling& t, const hardware::vdla::Config& c) {
  auto refuse = [](const std::string& what) { return absl::InvalidArgumentError(what); };
  if (c.batch != 1) return refuse("conv2d on VDLA takes a configuration of batch 1");
  if (s.c % c.block_in != 0 || s.o % c.block_out != 0) {
    return refuse(absl::StrCat("channels ", s.c, " -> ", s.o, " are not multiples of the blocks ",
                               c.block_in, " and ", c.block_out));
  }
  if (s.k < 1 || s.stride < 1 || s.pad < 0 || s.oh() < 1 || s.ow() < 1) {
    return refuse(absl::StrCat("kernel ", s.k, ", stride ", s.stride, ", pad ", s.pad,
                               " give no output for ", s.h, "x", s.w));
  }
  if (t.tile_h < 1 || s.oh() % t.tile_h != 0) {
    return refuse(
        absl::StrCat("tile_h ", t.tile_h, " does not divide the ", s.oh(), " output rows"));
  }
  if (t.tile_o < 1 || (s.o / c.block_out) % t.tile_o != 0) {
    return refuse(absl::StrCat("tile_o ", t.tile_o, " does not divide the ", s.o / c.block_out,
                               " output channel blocks"));
  }
  const int tiles = t.vthreads_over_channels ? s.o / c.block_out / t.tile_o : s.oh() / t.tile_h;
  if (t.vthreads < 1 || tiles % t.vthreads != 0) {
    return refuse(absl::StrCat("vthreads ", t.vthreads, " does not divide the ", tiles,
                               t.vthreads_over_channels ? " channel tiles" : " row tiles"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Conv2dSchedule> ScheduleConv2d(const Conv2dShape& v, const Conv2dTiling& t,
                                              const hardware::vdla::Config& c,
                                              std::optional<Conv2dTail> tail) {
  TESSEL_RETURN_IF_ERROR(Check(v, t, c));
  if (tail && (tail->shift < 0 || tail->shift > 31)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the tail's shift ", tail->shift, " is not between 0 and 31"));
  }
  const ir::DataType int8 = ir::DataType::Int(8);
  const int ci = v.c / c.block_in, co = v.o / c.block_out;
  Tensor data = te::placeholder({1, ci, v.h, v.w, 1, c.block_in}, int8, "data");
  Tensor kernel = te::placeholder({co, ci, v.k, v.k, c.block_out, c.block_in}, int8, "kernel");
  Tensor padded = te::compute(
      {1, ci, v.h + 2 * v.pad, v.w + 2 * v.pad, 1, c.block_in},
      [&](const std::vector<ir::Var>& i) {
        ir::Expr y = i[2] - v.pad, x = i[3] - v.pad;
        ir::Expr inside = y >= 0 && y < v.h && x >= 0 && x < v.w;
        return ir::if_then_else(inside, data(i[0], i[1], y, x, i[4], i[5]), ir::IntImm(int8, 0));
      },
      "padded");
  ir::IterVar ric = te::reduce_axis({0, ci}, "ric");
  ir::IterVar rkh = te::reduce_axis({0, v.k}, "rkh");
  ir::IterVar rkw = te::reduce_axis({0, v.k}, "rkw");
  ir::IterVar rii = te::reduce_axis({0, c.block_in}, "rii");
  Tensor acc = te::compute(
      {1, co, v.oh(), v.ow(), 1, c.block_out},
      [&](const std::vector<ir::Var>& i) {
        ir::Expr in = padded(i[0], ric, i[2] * v.stride + rkh, i[3] * v.stride + rkw, i[4], rii);
        ir::Expr wt = kernel(i[1], ric, rkh, rkw, i[5], rii);
        return te::sum(ir::cast(ir::kInt32, in) * ir::cast(ir::kInt32, wt), {ric, rkh, rkw, rii});
      },
      "acc");
  Tensor bias = te::placeholder({co, 1, c.block_out}, ir::kInt32, "bias");
  Tensor res = te::compute(
      {1, co, v.oh(), v.ow(), 1, c.block_out},
      [&](const std::vector<ir::Var>& i) {
        ir::Expr shifted =
            ir::shift_right(acc(i[0], i[1], i[2], i[3], i[4], i[5]) + bias(i[1], i[4], i[5]),
                            tail ? tail->shift : 0);
        return ir::max(ir::min(shifted, 127), tail && tail->relu ? 0 : -127);
      },
      "res");
  const Tensor last = tail ? res : acc;
  Tensor out = te::compute(
      {1, co, v.oh(), v.ow(), 1, c.block_out},
      [&](const std::vector<ir::Var>& i) {
        return ir::cast(int8, last(i[0], i[1], i[2], i[3], i[4], i[5]));
      },
      "out");

  schedule::Schedule s = schedule::create_schedule({out.op()});
  TESSEL_RETURN_IF_ERROR(s[padded].compute_inline());
  TESSEL_RETURN_IF_ERROR(s[acc].set_scope(kAccScope));
  std::optional<Tensor> bias_buf;
  if (tail) {
    TESSEL_RETURN_IF_ERROR(s[res].set_scope(kAccScope));
    TESSEL_ASSIGN_OR_RETURN(bias_buf, s.cache_read(bias, kAccScope, {res.op()}));
  }
  TESSEL_ASSIGN_OR_RETURN(Tensor in_buf, s.cache_read(padded, kInputScope, {acc.op()}));
  TESSEL_ASSIGN_OR_RETURN(Tensor wt_buf, s.cache_read(kernel, kWeightScope, {acc.op()}));
  const auto& oaxis = out.op().as<te::ComputeOpNode>()->axis;
  TESSEL_ASSIGN_OR_RETURN(auto ot, s[out].split(oaxis[1], t.tile_o));
  TESSEL_ASSIGN_OR_RETURN(auto yt, s[out].split(oaxis[2], t.tile_h));
  TESSEL_RETURN_IF_ERROR(s[out].reorder(
      {oaxis[0], ot.outer, yt.outer, ot.inner, yt.inner, oaxis[3], oaxis[4], oaxis[5]}));
  ir::IterVar tile = yt.outer;  // the innermost loop over tiles, where a tile is computed
  if (t.vthreads > 1) {
    const ir::IterVar spread = t.vthreads_over_channels ? ot.outer : yt.outer;
    TESSEL_ASSIGN_OR_RETURN(auto vt, s[out].split_nparts(spread, t.vthreads));
    TESSEL_RETURN_IF_ERROR(s[out].bind(vt.outer, "vthread"));
    if (!t.vthreads_over_channels) tile = vt.inner;
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
  TESSEL_RETURN_IF_ERROR(s[acc].reorder({ric, a[0], a[1], a[2], a[3], rkh, rkw, a[4], a[5], rii}));
  TESSEL_RETURN_IF_ERROR(s[in_buf].compute_at(s[acc], ric));
  TESSEL_RETURN_IF_ERROR(s[wt_buf].compute_at(s[acc], ric));
  if (t.double_buffer_weights) TESSEL_RETURN_IF_ERROR(s[wt_buf].double_buffer());
  TESSEL_RETURN_IF_ERROR(s[acc].tensorize(a[4], codegen::vdla::GemmIntrin(c)));
  TESSEL_RETURN_IF_ERROR(s[in_buf].pragma(in_buf.op().as<te::ComputeOpNode>()->axis[0], kDmaCopy));
  TESSEL_RETURN_IF_ERROR(s[wt_buf].pragma(wt_buf.op().as<te::ComputeOpNode>()->axis[0], kDmaCopy));
  TESSEL_RETURN_IF_ERROR(s[out].pragma(ot.inner, kDmaCopy));
  if (tail) return Conv2dSchedule{s, {data, kernel, bias, out}};
  return Conv2dSchedule{s, {data, kernel, out}};
}

absl::StatusOr<ir::PrimFunc> LowerConv2d(const Conv2dShape& shape, const Conv2dTiling& tiling,
                                         const hardware::vdla::Config& config,
                                         std::optional<Conv2dTail> tail) {
  TESSEL_ASSIGN_OR_RETURN(Conv2dSchedule s, ScheduleConv2d(shape, tiling, config, tail));
  return transforms::Lower(s.schedule, s.args, "conv2d");
}

}  // namespace tessel::ops::vdla
