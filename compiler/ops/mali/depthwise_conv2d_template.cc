// depthwise_conv2d.mali: conv2d with groups = ic = oc (channel multiplier 1) for Mali-class GPUs.
// Each work-item computes a vh x vw tile of one channel's output pixels in registers, the vw
// columns as float4 vectors (one weight tap broadcast over them); no local memory. Data NCHW and
// weight [c, 1, kh, kw] as they are (no prepare).
//
// With pack_data = 1 each work-item first copies the input window of its tile into private memory
// (spatial_pack.h), so the products read no padding conditions; with 0 they read the input through
// them. The program computes dw[n, c, oh / vh, ow / vw, vh, vw] (tiled, in registers) and stores
// out[n, c, oh, ow] (plus a fused tail; the output is logical NCHW, so is its index).
//
// Knobs: vh, vw (the tile: rows unrolled, columns 4 or 8 as float4s), wg_c, wg_oh, wg_ow (the
// work-group along channels with the batch, row tiles, column tiles), unroll_kernel (1: unroll
// the kh x kw taps), pack_data. Filters as conv2d_spatial_pack.mali's.
#include "compiler/ir/op.h"
#include "compiler/ops/mali/spatial_pack.h"
#include "compiler/ops/mali/work_group.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::mali {
namespace {

using nn::Axes;
using nn::Dim;
using schedule::Stage;

constexpr char kName[] = "depthwise_conv2d.mali";

absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  if (!(a.groups == a.ic && a.oc == a.ic)) {
    return ArgReader(kName, args)
        .Error("a depthwise convolution needs 'groups' == 'ic' == 'oc' (channel multiplier 1)");
  }
  return a;
}

struct Tiles {
  int64_t vh, vw, wg_c, wg_oh, wg_ow;
  bool unroll_kernel, pack_data;
};

Tiles ReadTiles(const search::Config& c) {
  return {c.knob("vh"),
          c.knob("vw"),
          c.knob("wg_c"),
          c.knob("wg_oh"),
          c.knob("wg_ow"),
          c.knob("unroll_kernel") == 1,
          c.knob("pack_data") == 1};
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(kName, facts).status());
  const target::GpuFacts gpu = *facts.gpu;
  search::ConfigSpace space;
  space.define_knob("vh", {1, 2, 4});
  space.define_knob("vw", {4, 8});
  DefineWorkGroupKnob(space, "wg_c", a.n * a.ic);
  DefineWorkGroupKnob(space, "wg_oh", a.oh());
  DefineWorkGroupKnob(space, "wg_ow", CeilDiv(a.ow(), 4));
  space.define_knob("unroll_kernel", {0, 1});
  space.define_knob("pack_data", {0, 1});
  space.AddFilter("work-items per group", [gpu](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return t.wg_c * t.wg_oh * t.wg_ow <= gpu.max_threads_per_block;
  });
  space.AddFilter("work-groups within the tiles", [a](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return t.wg_oh <= CeilPow2(CeilDiv(a.oh(), t.vh)) && t.wg_ow <= CeilPow2(CeilDiv(a.ow(), t.vw));
  });
  const int64_t cap = AccumulatorCap(gpu);
  space.AddFilter("accumulators per work-item", [cap](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return t.vh * t.vw <= cap;
  });
  space.AddFilter("packed window in registers", [a, gpu](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return !t.pack_data || WindowFloats(a, t.vh, t.vw) <= gpu.registers_per_thread;
  });
  return space;
}

// 2 x 4 pixels (one float4 per row), the window packed where it fits the registers; 64
// work-items a group, up to 8 along the columns, then rows, then channels.
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Conv2dAttrs a = *ReadAttrs(args);  // Space has read them
  const int64_t threads = std::min<int64_t>(64, FloorPow2(facts.gpu->max_threads_per_block));
  Tiles t{std::min<int64_t>(2, FloorPow2(a.oh())), 4, 1, 1, 1, true, true};
  if (WindowFloats(a, t.vh, t.vw) > facts.gpu->registers_per_thread) t.pack_data = false;
  t.wg_ow = std::min<int64_t>(8, CeilPow2(CeilDiv(a.ow(), t.vw)));
  t.wg_oh = std::min(threads / t.wg_ow, CeilPow2(CeilDiv(a.oh(), t.vh)));
  t.wg_c = std::min(threads / (t.wg_ow * t.wg_oh), CeilPow2(a.n * a.ic));
  return ConfigFromKnobs(space, {{"vh", t.vh},
                                 {"vw", t.vw},
                                 {"wg_c", t.wg_c},
                                 {"wg_oh", t.wg_oh},
                                 {"wg_ow", t.wg_ow},
                                 {"unroll_kernel", t.unroll_kernel ? 1 : 0},
                                 {"pack_data", t.pack_data ? 1 : 0}});
}

// The tile's products in registers: taps outermost, then rows (unrolled) and columns (float4s).
// The packed window of the tile just before.
absl::Status ScheduleDepthwise(schedule::Schedule& s, const te::Tensor& dw,
                               const te::Tensor& window, const Tiles& t) {
  Stage stage = s[dw];
  TESSEL_RETURN_IF_ERROR(stage.set_scope("local"));
  const std::vector<ir::IterVar>& axes = Axes(dw);
  const std::vector<ir::IterVar>& taps = dw.op().as<te::ComputeOpNode>()->reduce_axis;
  TESSEL_ASSIGN_OR_RETURN(auto vw, stage.split(axes[5], Dim(4)));
  TESSEL_RETURN_IF_ERROR(stage.reorder(
      {axes[0], axes[1], axes[2], axes[3], taps[0], taps[1], axes[4], vw.outer, vw.inner}));
  TESSEL_RETURN_IF_ERROR(stage.unroll(axes[4]));
  TESSEL_RETURN_IF_ERROR(stage.unroll(vw.outer));
  TESSEL_RETURN_IF_ERROR(stage.vectorize(vw.inner));
  if (t.unroll_kernel) {
    TESSEL_RETURN_IF_ERROR(stage.unroll(taps[0]));
    TESSEL_RETURN_IF_ERROR(stage.unroll(taps[1]));
  }
  if (!window.defined()) return absl::OkStatus();
  Stage pack = s[window];
  TESSEL_RETURN_IF_ERROR(pack.set_scope("local"));
  TESSEL_RETURN_IF_ERROR(pack.compute_at(stage, axes[3]));
  TESSEL_RETURN_IF_ERROR(pack.unroll(Axes(window)[4]));
  return pack.unroll(Axes(window)[5]);
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts& facts, const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(kName, facts).status());
  const Tiles t = ReadTiles(config);
  const int vh = static_cast<int>(t.vh), vw = static_cast<int>(t.vw);
  const int sh = static_cast<int>(a.stride[0]), sw = static_cast<int>(a.stride[1]);
  const int dh = static_cast<int>(a.dilation[0]), dwl = static_cast<int>(a.dilation[1]);

  te::Tensor data = te::placeholder(nn::ShapeExprs({a.n, a.ic, a.h, a.w}), ir::kFloat32, "data");
  te::Tensor weight =
      te::placeholder(nn::ShapeExprs({a.ic, 1, a.kh, a.kw}), ir::kFloat32, "weight");
  te::Tensor window;
  if (t.pack_data) window = PackWindows(data, a, t.vh, t.vw, "data_vec");
  ir::IterVar ry = te::reduce_axis({Dim(0), Dim(a.kh)}, "ry");
  ir::IterVar rx = te::reduce_axis({Dim(0), Dim(a.kw)}, "rx");
  te::Tensor dw = te::compute(
      nn::ShapeExprs({a.n, a.ic, CeilDiv(a.oh(), t.vh), CeilDiv(a.ow(), t.vw), t.vh, t.vw}),
      [&](const std::vector<ir::Var>& v) {
        const ir::Expr y = v[4] * sh + ry.var() * dh, x = v[5] * sw + rx.var() * dwl;
        ir::Expr in = t.pack_data ? window(v[0], v[1], v[2], v[3], y, x)
                                  : PaddedData(data, a, v[0], v[1], v[2] * (vh * sh) + y,
                                               v[3] * (vw * sw) + x);
        return te::sum(in * weight(v[1], 0, ry.var(), rx.var()), {ry, rx});
      },
      "depthwise");
  te::Tensor out = te::compute(
      nn::ShapeExprs({a.n, a.ic, a.oh(), a.ow()}),
      [&](ir::Var n, ir::Var c, ir::Var y, ir::Var x) {
        return dw(n, c, y / vh, x / vw, y % vh, x % vw);
      },
      "depthwise_conv2d");
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }

  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  schedule::Schedule& s = p.schedule;
  if (tail != nullptr) TESSEL_RETURN_IF_ERROR(s[out].compute_inline());
  TESSEL_ASSIGN_OR_RETURN(WorkGroupLoops wg,
                          BindOutputTiles(s[stored], 1, t.vh, t.vw, {t.wg_c, t.wg_oh, t.wg_ow}));
  TESSEL_RETURN_IF_ERROR(s[dw].compute_at(s[stored], wg.items.back()));
  TESSEL_RETURN_IF_ERROR(ScheduleDepthwise(s, dw, window, t));

  p.args = {data, weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.oc, 1, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template MakeDepthwiseTemplate() {
  return TailFusingTemplate(
      kName, "conv2d",
      "depthwise conv2d on Mali GPUs: register tiles of one channel, float4 columns", Space,
      Fallback, Instantiate);
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("mali", MakeDepthwiseTemplate());

}  // namespace tessel::ops::mali
