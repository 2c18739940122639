// conv2d_nchw.x86: direct conv2d in NCHW / OIHW, any groups, stride, padding and dilation (the
// general fallback; groups = 1 layers are faster with conv2d_nchwc.x86). Knobs:
//   tile_oc    split of oc: [oc / ocn, ocn], ocn output channels per register tile (unrolled)
//   tile_ow    split of ow: [ow / owv, owv], owv output columns vectorized
//   unroll_kw  1: unroll the kernel-width loop
// Loop nest: parallel over (n, oc / ocn, oh); ow / owv; the reduction (ic, kh, kw); ocn
// (unrolled); owv (vectorized). The padded input is a separate stage, parallel over its rows.
// A fused tail (instantiate_with_tail) takes the output stage's loops, the convolution inlined
// into it: it reads the accumulators and stores tail(value), owv vectorized (logical index: the
// output's own).
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/conv2d_nchwc_schedule.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::x86 {
namespace {

using nn::Axes;

using schedule::Stage;

constexpr char kName[] = "conv2d_nchw.x86";

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  search::ConfigSpace space;
  space.define_split("tile_oc", a.oc,
                     {.policy = search::SplitPolicy::kFactors, .num_outputs = 2,
                      .max_innermost = 16});
  space.define_split("tile_ow", a.ow(),
                     {.policy = search::SplitPolicy::kFactors, .num_outputs = 2,
                      .max_innermost = 64});
  space.define_knob("unroll_kw", {0, 1});
  return space;
}

// A vector of output columns (the widest divisor of ow up to one vector) times enough output
// channels to fill 3/8 of the vector registers with accumulators (12 of AVX-512's 32, 6 of
// AVX2's 16).
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Conv2dAttrs a = *nn::ReadConv2dAttrs(kName, args);
  const int64_t lanes = std::max(facts.lanes(), 4);
  const int64_t owv = LargestDivisorAtMost(a.ow(), lanes);
  const int64_t ocn = LargestDivisorAtMost(a.oc, facts.vector_registers * 3 / 8);
  absl::StatusOr<search::Config> config = space.FromJson(
      {{"knobs",
        {{"tile_oc", {a.oc / ocn, ocn}}, {"tile_ow", {a.ow() / owv, owv}}, {"unroll_kw", 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// `stored`: c.out, or c.out with a fused tail (c.out is then computed inline in it).
absl::Status Apply(schedule::Schedule& s, const nn::Conv2dNchw& c, const te::Tensor& stored,
                   int64_t ocn, int64_t owv, bool unroll_kw) {
  Stage pad = s[c.pad];
  const auto& pa = Axes(c.pad);
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar prow, pad.fuse(pa[0], pa[1]));
  TESSEL_RETURN_IF_ERROR(pad.parallel(prow));

  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(c.out, "local"));
  if (!stored.op().same_as(c.out.op())) TESSEL_RETURN_IF_ERROR(s[c.out].compute_inline());
  Stage out = s[stored];
  const auto& oa = Axes(stored);  // n, oc, oh, ow
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult oc, out.split(oa[1], static_cast<int>(ocn)));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ow, out.split(oa[3], static_cast<int>(owv)));
  TESSEL_RETURN_IF_ERROR(out.reorder({oa[0], oc.outer, oa[2], ow.outer, oc.inner, ow.inner}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, out.fuse(oa[0], oc.outer));
  TESSEL_ASSIGN_OR_RETURN(rows, out.fuse(rows, oa[2]));
  TESSEL_RETURN_IF_ERROR(out.parallel(rows));
  TESSEL_RETURN_IF_ERROR(out.vectorize(ow.inner));

  Stage cc = s[acc];
  TESSEL_RETURN_IF_ERROR(cc.compute_at(out, ow.outer));
  const te::ComputeOpNode* op = acc.op().as<te::ComputeOpNode>();
  const auto& ca = op->axis;         // n, oc, oh, ow
  const auto& cr = op->reduce_axis;  // rc, ry, rx
  TESSEL_RETURN_IF_ERROR(cc.reorder({ca[0], ca[2], cr[0], cr[1], cr[2], ca[1], ca[3]}));
  if (unroll_kw) TESSEL_RETURN_IF_ERROR(cc.unroll(cr[2]));
  TESSEL_RETURN_IF_ERROR(cc.unroll(ca[1]));
  TESSEL_RETURN_IF_ERROR(cc.vectorize(ca[3]));
  return absl::OkStatus();
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  nn::Conv2dNchw c = nn::MakeConv2dNchw(a);
  te::Tensor stored = c.out;
  if (tail != nullptr) {
    stored = ApplyTail(c.out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(Apply(p.schedule, c, stored, config.split("tile_oc")[1],
                               config.split("tile_ow")[1], config.knob("unroll_kw") != 0));
  p.args = {c.data, c.weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}},
                      {"weight", {a.oc, a.ic / a.groups, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template Make() {
  return Template{
      kName,
      "conv2d",
      "direct conv2d in NCHW, any groups: channel tile x vectorized output columns",
      Space,
      Fallback,
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return InstantiateWithTail(config, args, nullptr);
      },
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
         const OutputTail& tail) { return InstantiateWithTail(config, args, &tail); }};
}

TESSEL_REGISTER_TEMPLATE("cpu", Make());

}  // namespace
}  // namespace tessel::ops::x86
