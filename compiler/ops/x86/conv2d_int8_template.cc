// conv2d_int8.x86: the int8 convolution of OPERATORS.md (conv2d_int8) on the CPU, bit for bit
// what VDLA computes (conv2d_int8.vdla), so that a quantized network runs wholly on either. Any
// batch, stride and padding; groups and dilation 1.
//
// Compute, all in the logical layouts (NCHW int8 data, OIHW int8 weight, [oc] int32 bias):
//   pad  [n, ic, h + pad_t + pad_b, w + pad_l + pad_r] int8, zeros outside (a stage only when
//        there is padding)
//   acc  [n, oc, oh, ow] int32: sum over (ic, kh, kw) of int32(pad) * int32(weight); int32
//        arithmetic wraps (ir/node.h), as the accelerator's accumulators do
//   out  [n, oc, oh, ow] int8: with `shift`, clip((acc + bias[oc]) >> shift, -127 or with `relu`
//        0, 127), the shift arithmetic (ir's shift_right on a signed type: rounding toward minus
//        infinity); without it, the low 8 bits of acc (an integer narrowing cast truncates)
//
// Knobs:
//   tile_oc        split of oc: [oc / ocn, ocn], ocn output channels per register tile (unrolled)
//   tile_ow        split of ow: [ow / owv, owv], owv output columns vectorized
//   reduce_order   the reduction loops: [0, 1, 2] (ic, kh, kw) or [1, 2, 0] (kh, kw, ic)
//   unroll_kw      1: unroll the kernel-width loop
// Loop nest: parallel over (n, oc / ocn, oh); ow / owv; the accumulators' tile (ocn x owv int32,
// "local"): the reduction loops, ocn (unrolled), owv (vectorized); then the tail over the tile,
// owv vectorized. The fallback is conv2d_nchw.x86's: a vector of output columns (the widest
// divisor of ow up to one vector) by the channels that fill 3/8 of the vector registers with
// accumulators, the reduction in (ic, kh, kw) order, kw not unrolled.
#include <algorithm>
#include <optional>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/ops/logical_op.h"
#include "compiler/ops/nn/conv2d.h"
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

constexpr char kName[] = "conv2d_int8.x86";

struct Args {
  nn::Conv2dAttrs conv;
  std::optional<nn::Requantize> requantize;
};

// The arguments; errors name the key (groups and dilation other than 1 among them).
absl::StatusOr<Args> ReadArgs(const OpArgs& args) {
  Args a;
  TESSEL_ASSIGN_OR_RETURN(a.conv, nn::ReadPlainConv2dAttrs(kName, args));
  TESSEL_ASSIGN_OR_RETURN(a.requantize, nn::ReadRequantize(kName, args));
  return a;
}

struct Conv2dInt8 {
  te::Tensor data, weight, bias, pad, acc, out;  // bias: only with requantize; pad: data unpadded
  ir::IterVar rc, ry, rx;                        // the reduction axes
};

Conv2dInt8 MakeConv2dInt8(const Args& args) {
  const nn::Conv2dAttrs& a = args.conv;
  const ir::DataType int8 = ir::DataType::Int(8);
  Conv2dInt8 c;
  c.data = te::placeholder({Dim(a.n), Dim(a.ic), Dim(a.h), Dim(a.w)}, int8, "data");
  c.weight = te::placeholder({Dim(a.oc), Dim(a.ic), Dim(a.kh), Dim(a.kw)}, int8, "weight");
  c.pad = c.data;
  if (a.pad[0] + a.pad[1] + a.pad[2] + a.pad[3] > 0) {
    const int64_t ph = a.h + a.pad[0] + a.pad[2], pw = a.w + a.pad[1] + a.pad[3];
    c.pad = te::compute({Dim(a.n), Dim(a.ic), Dim(ph), Dim(pw)},
                        [&](Var n, Var ch, Var y, Var x) {
                          const Expr inside = y >= Dim(a.pad[0]) && y < Dim(a.pad[0] + a.h) &&
                                              x >= Dim(a.pad[1]) && x < Dim(a.pad[1] + a.w);
                          return ir::if_then_else(
                              inside, c.data(n, ch, y - Dim(a.pad[0]), x - Dim(a.pad[1])),
                              ir::IntImm(int8, 0));
                        },
                        "pad", {"n", "c", "y", "x"});
  }
  c.rc = te::reduce_axis({Dim(0), Dim(a.ic)}, "rc");
  c.ry = te::reduce_axis({Dim(0), Dim(a.kh)}, "ry");
  c.rx = te::reduce_axis({Dim(0), Dim(a.kw)}, "rx");
  c.acc = te::compute(
      {Dim(a.n), Dim(a.oc), Dim(a.oh()), Dim(a.ow())},
      [&](Var n, Var o, Var y, Var x) {
        const Expr in =
            c.pad(n, c.rc->var, y * Dim(a.stride[0]) + c.ry->var, x * Dim(a.stride[1]) + c.rx->var);
        const Expr wt = c.weight(o, c.rc->var, c.ry->var, c.rx->var);
        return te::sum(ir::cast(ir::kInt32, in) * ir::cast(ir::kInt32, wt), {c.rc, c.ry, c.rx});
      },
      "acc", {"n", "oc", "oh", "ow"});
  const std::optional<nn::Requantize>& rq = args.requantize;
  if (rq) c.bias = te::placeholder({Dim(a.oc)}, ir::kInt32, "bias");
  c.out = te::compute(
      {Dim(a.n), Dim(a.oc), Dim(a.oh()), Dim(a.ow())},
      [&](Var n, Var o, Var y, Var x) {
        if (!rq) return ir::cast(int8, c.acc(n, o, y, x));
        const Expr shifted = ir::shift_right(c.acc(n, o, y, x) + c.bias(o), Dim(rq->shift));
        return ir::cast(int8, ir::max(ir::min(shifted, Dim(127)), Dim(rq->relu ? 0 : -127)));
      },
      "conv2d_int8", {"n", "oc", "oh", "ow"});
  return c;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(const Args a, ReadArgs(args));
  search::ConfigSpace space;
  space.define_split(
      "tile_oc", a.conv.oc,
      {.policy = search::SplitPolicy::kFactors, .num_outputs = 2, .max_innermost = 16});
  space.define_split(
      "tile_ow", a.conv.ow(),
      {.policy = search::SplitPolicy::kFactors, .num_outputs = 2, .max_innermost = 64});
  space.define_reorder(
      "reduce_order", 3,
      {.policy = search::ReorderPolicy::kCandidates, .candidates = {{0, 1, 2}, {1, 2, 0}}});
  space.define_knob("unroll_kw", {0, 1});
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const Args a = *ReadArgs(args);  // Space has read them
  const int64_t lanes = std::max(facts.lanes(), 4);
  const int64_t ow = a.conv.ow(), oc = a.conv.oc;
  const int64_t owv = LargestDivisorAtMost(ow, lanes);
  const int64_t ocn = LargestDivisorAtMost(oc, facts.vector_registers * 3 / 8);
  return ConfigFromKnobs(space, {{"tile_oc", {oc / ocn, ocn}},
                                 {"tile_ow", {ow / owv, owv}},
                                 {"reduce_order", {0, 1, 2}},
                                 {"unroll_kw", 0}});
}

absl::Status Apply(schedule::Schedule& s, const Conv2dInt8& c, const search::Config& config) {
  if (!te::SameTensor(c.pad, c.data)) {
    Stage pad = s[c.pad];
    const auto& pa = Axes(c.pad);  // n, c, y, x
    TESSEL_ASSIGN_OR_RETURN(ir::IterVar planes, pad.fuse(pa[0], pa[1]));
    TESSEL_RETURN_IF_ERROR(pad.parallel(planes));
  }

  Stage out = s[c.out];
  const auto& oa = Axes(c.out);  // n, oc, oh, ow
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult oc,
                          out.split(oa[1], static_cast<int>(config.split("tile_oc")[1])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ow,
                          out.split(oa[3], static_cast<int>(config.split("tile_ow")[1])));
  TESSEL_RETURN_IF_ERROR(out.reorder({oa[0], oc.outer, oa[2], ow.outer, oc.inner, ow.inner}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, out.fuse(oa[0], oc.outer));
  TESSEL_ASSIGN_OR_RETURN(rows, out.fuse(rows, oa[2]));
  TESSEL_RETURN_IF_ERROR(out.parallel(rows));
  TESSEL_RETURN_IF_ERROR(out.vectorize(ow.inner));

  Stage acc = s[c.acc];
  TESSEL_RETURN_IF_ERROR(acc.set_scope("local"));
  TESSEL_RETURN_IF_ERROR(acc.compute_at(out, ow.outer));
  const auto& ca = Axes(c.acc);  // n, oc, oh, ow: here 1 x ocn x 1 x owv
  const std::vector<ir::IterVar> reduce = {c.rc, c.ry, c.rx};
  const std::vector<int>& order = config.reorder("reduce_order");
  TESSEL_RETURN_IF_ERROR(acc.reorder(
      {ca[0], ca[2], reduce[order[0]], reduce[order[1]], reduce[order[2]], ca[1], ca[3]}));
  if (config.knob("unroll_kw") != 0) TESSEL_RETURN_IF_ERROR(acc.unroll(c.rx));
  TESSEL_RETURN_IF_ERROR(acc.unroll(ca[1]));
  TESSEL_RETURN_IF_ERROR(acc.vectorize(ca[3]));
  return absl::OkStatus();
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(const Args a, ReadArgs(args));
  const Conv2dInt8 c = MakeConv2dInt8(a);
  const nn::Conv2dAttrs& v = a.conv;
  OpProgram p;
  p.schedule = schedule::create_schedule({c.out.op()});
  TESSEL_RETURN_IF_ERROR(Apply(p.schedule, c, config));
  p.args = {c.data, c.weight};
  if (a.requantize) p.args.push_back(c.bias);
  p.args.push_back(c.out);
  p.flops = v.flops();
  SetLogicalSignature(p, Conv2dInt8Signature(v, a.requantize.has_value()));
  return p;
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("cpu", (Template{.name = kName,
                                          .op = "conv2d_int8",
                                          .summary = "int8 conv2d, requantized or wrapped to int8: "
                                                     "channel tile x vectorized output columns",
                                          .space = Space,
                                          .fallback = Fallback,
                                          .instantiate = Instantiate}));

}  // namespace tessel::ops::x86
