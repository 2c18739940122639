// conv2d_spatial_pack.mali: conv2d (groups 1) for Mali-class GPUs by spatial packing (the paper's
// Fig. 19). Each work-item computes a vh x vw tile of output pixels for vc output channels in
// registers, the vc channels as float4 vectors; no local memory.
//
// Layouts: the weight is packed on the host (`prepare`: a constant) as
// [ceil(oc / vc), ic, kh, kw, vc] (host_pack.h), so that the vc channels of one tap are one or
// two aligned float4 loads. The data stays NCHW: with pack_data = 1 each work-item copies the input
// window of its tile for one input channel at a time into private memory (spatial_pack.h), a
// stage inside the kernel; with 0 the products read the input directly through the padding
// condition.
//
// Program: conv[n, oc / vc, oh / vh, ow / vw, vh, vw, vc] (tiled coordinates, in registers), and
// the stored output out[n, oc, oh, ow] = conv at its tile and offset (plus a fused tail; the
// output is logical NCHW, so is its index).
//
// Knobs:
//   vc, vh, vw          the work-item's tile: output channels (4 or 8: one or two float4s), rows,
//                       columns (unrolled)
//   wg_co, wg_oh, wg_ow the work-group: work-items along the channel tiles (with the batch),
//                       the row tiles and the column tiles
//   unroll_kernel       1: unroll the kh x kw taps
//   pack_data           1: pack each input channel's window into private memory first
// Filters: work-items per group (the target's limit), work-groups no wider than the tiles,
// accumulators within half the registers, a packed window within the registers.
#include "compiler/ir/op.h"
#include "compiler/ops/mali/host_pack.h"
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

constexpr char kName[] = "conv2d_spatial_pack.mali";

absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  if (a.groups != 1) {
    return ArgReader(kName, args)
        .Error(absl::StrCat("spatial packing computes 'groups' = 1 only, got ", a.groups));
  }
  return a;
}

struct Tiles {
  int64_t vc, vh, vw, wg_co, wg_oh, wg_ow;
  bool unroll_kernel, pack_data;
};

Tiles ReadTiles(const search::Config& c) {
  return {c.knob("vc"),
          c.knob("vh"),
          c.knob("vw"),
          c.knob("wg_co"),
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
  space.define_knob("vc", {4, 8});
  space.define_knob("vh", {1, 2, 4});
  space.define_knob("vw", {1, 2, 4, 8});
  DefineWorkGroupKnob(space, "wg_co", a.n * CeilDiv(a.oc, 4));
  DefineWorkGroupKnob(space, "wg_oh", a.oh());
  DefineWorkGroupKnob(space, "wg_ow", a.ow());
  space.define_knob("unroll_kernel", {0, 1});
  space.define_knob("pack_data", {0, 1});
  space.AddFilter("work-items per group", [gpu](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return t.wg_co * t.wg_oh * t.wg_ow <= gpu.max_threads_per_block;
  });
  space.AddFilter("work-groups within the tiles", [a](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return t.wg_co <= CeilPow2(a.n * CeilDiv(a.oc, t.vc)) &&
           t.wg_oh <= CeilPow2(CeilDiv(a.oh(), t.vh)) && t.wg_ow <= CeilPow2(CeilDiv(a.ow(), t.vw));
  });
  const int64_t cap = AccumulatorCap(gpu);
  space.AddFilter("accumulators per work-item", [cap](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return t.vc * t.vh * t.vw <= cap;
  });
  space.AddFilter("packed window in registers", [a, gpu](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return !t.pack_data || WindowFloats(a, t.vh, t.vw) <= gpu.registers_per_thread;
  });
  return space;
}

// One float4 of channels by 2 x 4 pixels (32 accumulators, half of a Mali-T860 work-item's
// registers; fewer pixels where the output is smaller), the window packed where it fits the
// registers; 64 work-items a group, up to 8 along the columns, then rows, then channels.
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Conv2dAttrs a = *ReadAttrs(args);  // Space has read them
  const int64_t threads = std::min<int64_t>(64, FloorPow2(facts.gpu->max_threads_per_block));
  Tiles t{4,
          std::min<int64_t>(2, FloorPow2(a.oh())),
          std::min<int64_t>(4, FloorPow2(a.ow())),
          1,
          1,
          1,
          true,
          true};
  if (WindowFloats(a, t.vh, t.vw) > facts.gpu->registers_per_thread) t.pack_data = false;
  t.wg_ow = std::min<int64_t>(8, CeilPow2(CeilDiv(a.ow(), t.vw)));
  t.wg_oh = std::min(threads / t.wg_ow, CeilPow2(CeilDiv(a.oh(), t.vh)));
  t.wg_co = std::min(threads / (t.wg_ow * t.wg_oh), CeilPow2(a.n * CeilDiv(a.oc, t.vc)));
  return ConfigFromKnobs(space, {{"vc", t.vc},
                                 {"vh", t.vh},
                                 {"vw", t.vw},
                                 {"wg_co", t.wg_co},
                                 {"wg_oh", t.wg_oh},
                                 {"wg_ow", t.wg_ow},
                                 {"unroll_kernel", t.unroll_kernel ? 1 : 0},
                                 {"pack_data", t.pack_data ? 1 : 0}});
}

// The tile's products in registers: taps outermost, then the tile's rows, columns and channels
// (unrolled; the channels as float4s). The packed window of each input channel just before.
absl::Status ScheduleConv(schedule::Schedule& s, const te::Tensor& conv, const te::Tensor& window,
                          const Tiles& t) {
  Stage stage = s[conv];
  TESSEL_RETURN_IF_ERROR(stage.set_scope("local"));
  const std::vector<ir::IterVar>& axes = Axes(conv);
  const std::vector<ir::IterVar>& taps = conv.op().as<te::ComputeOpNode>()->reduce_axis;
  TESSEL_ASSIGN_OR_RETURN(auto vc, stage.split(axes[6], Dim(4)));
  TESSEL_RETURN_IF_ERROR(stage.reorder({axes[0], axes[1], axes[2], axes[3], taps[0], taps[1],
                                        taps[2], axes[4], axes[5], vc.outer, vc.inner}));
  TESSEL_RETURN_IF_ERROR(stage.unroll(axes[4]));
  TESSEL_RETURN_IF_ERROR(stage.unroll(axes[5]));
  TESSEL_RETURN_IF_ERROR(stage.unroll(vc.outer));
  TESSEL_RETURN_IF_ERROR(stage.vectorize(vc.inner));
  if (t.unroll_kernel) {
    TESSEL_RETURN_IF_ERROR(stage.unroll(taps[1]));
    TESSEL_RETURN_IF_ERROR(stage.unroll(taps[2]));
  }
  if (!window.defined()) return absl::OkStatus();
  Stage pack = s[window];
  TESSEL_RETURN_IF_ERROR(pack.set_scope("local"));
  TESSEL_RETURN_IF_ERROR(pack.compute_at(stage, taps[0]));
  TESSEL_RETURN_IF_ERROR(pack.unroll(Axes(window)[4]));
  return pack.unroll(Axes(window)[5]);
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts& facts, const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(kName, facts).status());
  const Tiles t = ReadTiles(config);
  const int64_t co_tiles = CeilDiv(a.oc, t.vc), oh_tiles = CeilDiv(a.oh(), t.vh),
                ow_tiles = CeilDiv(a.ow(), t.vw);
  const int vc = static_cast<int>(t.vc), vh = static_cast<int>(t.vh), vw = static_cast<int>(t.vw);
  const int sh = static_cast<int>(a.stride[0]), sw = static_cast<int>(a.stride[1]);
  const int dh = static_cast<int>(a.dilation[0]), dw = static_cast<int>(a.dilation[1]);

  te::Tensor data = te::placeholder(nn::ShapeExprs({a.n, a.ic, a.h, a.w}), ir::kFloat32, "data");
  te::Tensor kernel = te::placeholder(nn::ShapeExprs({co_tiles, a.ic, a.kh, a.kw, t.vc}),
                                      ir::kFloat32, "kernel_vec");
  te::Tensor window;
  if (t.pack_data) window = PackWindows(data, a, t.vh, t.vw, "data_vec");
  ir::IterVar rc = te::reduce_axis({Dim(0), Dim(a.ic)}, "rc");
  ir::IterVar ry = te::reduce_axis({Dim(0), Dim(a.kh)}, "ry");
  ir::IterVar rx = te::reduce_axis({Dim(0), Dim(a.kw)}, "rx");
  te::Tensor conv = te::compute(
      nn::ShapeExprs({a.n, co_tiles, oh_tiles, ow_tiles, t.vh, t.vw, t.vc}),
      [&](const std::vector<ir::Var>& v) {
        const ir::Expr y = v[4] * sh + ry.var() * dh, x = v[5] * sw + rx.var() * dw;
        ir::Expr in = t.pack_data ? window(v[0], rc.var(), v[2], v[3], y, x)
                                  : PaddedData(data, a, v[0], rc.var(), v[2] * (vh * sh) + y,
                                               v[3] * (vw * sw) + x);
        return te::sum(in * kernel(v[1], rc.var(), ry.var(), rx.var(), v[6]), {rc, ry, rx});
      },
      "conv");
  te::Tensor out = te::compute(
      nn::ShapeExprs({a.n, a.oc, a.oh(), a.ow()}),
      [&](ir::Var n, ir::Var o, ir::Var y, ir::Var x) {
        return conv(n, o / vc, y / vh, x / vw, y % vh, x % vw, o % vc);
      },
      "conv2d");
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }

  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  schedule::Schedule& s = p.schedule;
  if (tail != nullptr) TESSEL_RETURN_IF_ERROR(s[out].compute_inline());
  TESSEL_ASSIGN_OR_RETURN(
      WorkGroupLoops wg, BindOutputTiles(s[stored], t.vc, t.vh, t.vw, {t.wg_co, t.wg_oh, t.wg_ow}));
  Stage st = s[stored];
  TESSEL_RETURN_IF_ERROR(s[conv].compute_at(st, wg.items.back()));
  TESSEL_RETURN_IF_ERROR(ScheduleConv(s, conv, window, t));

  p.args = {data, kernel};
  p.args.push_back(stored);
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.oc, a.ic, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  const int64_t vc_blocks = t.vc;
  p.prepare = [vc_blocks](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    std::vector<runtime::NDArray> out = in;
    out[1] = PackOutputChannels(in[1], vc_blocks);
    return out;
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template MakeConv2dSpatialPackTemplate() {
  return TailFusingTemplate(
      kName, "conv2d",
      "conv2d on Mali GPUs: spatial packing, register tiles, float4 output channels", Space,
      Fallback, Instantiate);
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("mali", MakeConv2dSpatialPackTemplate());

}  // namespace tessel::ops::mali
