// depthwise_conv2d_nchwc.x86: conv2d with groups = ic = oc (channel multiplier 1) in NCHW[x]c.
// The program takes data NCHW{cb}c and weight [c / cb, kh, kw, cb] and gives NCHW{cb}c.
// Knobs:
//   tile_c     split of the channels: [c / cb, cb], cb vectorized
//   tile_ow    split of the output width: [ow / reg_n, reg_n], reg_n unrolled (reg_n x cb
//              accumulators in registers across the kernel window)
//   unroll_kernel  1: unroll the kh and kw loops
//   pad_at_row     1: compute the padded input window one register tile needs right before
//                  it (it stays in L1; windows overlap, so about kh / stride copies of each);
//                  0: pad the whole input first, in parallel (one extra pass over memory)
// Loop nest: parallel over (n, c / cb, oh); ow / reg_n; kh, kw; reg_n; cb.
// A fused tail (instantiate_with_tail) takes the output stage's loops, the depthwise result
// inlined into it: it reads the register tile's accumulators and stores tail(value), cb
// vectorized; its logical index is NCHW (NchwcToLogical).
#include "compiler/ops/host_layout.h"
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

constexpr char kName[] = "depthwise_conv2d_nchwc.x86";

absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  if (!(a.groups == a.ic && a.oc == a.ic)) {
    return ArgReader(kName, args)
        .Error("a depthwise convolution needs 'groups' == 'ic' == 'oc' (channel multiplier 1)");
  }
  return a;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  search::ConfigSpace space;
  space.define_split(
      "tile_c", a.ic,
      {.policy = search::SplitPolicy::kFactors, .num_outputs = 2, .max_innermost = 64});
  space.define_split(
      "tile_ow", a.ow(),
      {.policy = search::SplitPolicy::kFactors, .num_outputs = 2, .max_innermost = 32});
  space.define_knob("unroll_kernel", {0, 1});
  space.define_knob("pad_at_row", {0, 1});
  return space;
}

// Stride 1: reg_n keeps reg_n columns of accumulators plus the inputs of one kernel tap in
// registers, 7/16 of the vector registers in one-vector columns (14 with AVX-512, 7 with AVX2),
// fewer in wider blocks (half, rounded up, in two-vector ones: 1.1-1.3x faster than 7 with
// AVX2's 16-channel blocks on Table 2's D1, D3, D5). Strided: at most 2 columns, measured with
// template_bench on Table 2's D2, D4, D6 (Zen 3, AVX2, 2 threads: 1.7-2.2x faster than 7
// columns) and what the Fig. 14 tuning logs found best on Zen 4 (1 to 4 columns). The padded
// window goes next to the tile when strided (a whole padded input would be read once more for a
// quarter of the outputs), and is padded once in advance otherwise (measured on Table 2's D
// layers).
search::Config FallbackWithBlock(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                 const target::TargetFacts& facts, int64_t cb) {
  const int64_t lanes = std::max(facts.lanes(), 4);
  const int64_t vectors = (cb + lanes - 1) / lanes;
  const bool strided = a.stride[0] > 1 || a.stride[1] > 1;
  const int64_t columns = (facts.vector_registers * 7 / 16 + vectors - 1) / vectors;
  const int64_t reg_n = LargestDivisorAtMost(a.ow(), strided ? 2 : columns);
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs",
                                                           {{"tile_c", {a.ic / cb, cb}},
                                                            {"tile_ow", {a.ow() / reg_n, reg_n}},
                                                            {"unroll_kernel", 1},
                                                            {"pad_at_row", strided ? 1 : 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// One vector of channels (the data is read as vectors along the channel block).
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Conv2dAttrs a = *ReadAttrs(args);
  const int64_t lanes = std::max(facts.lanes(), 4);
  return FallbackWithBlock(space, a, facts,
                           a.ic % lanes == 0 ? lanes : LargestDivisorAtMost(a.ic, lanes));
}

// Data and output blocks are one (channels map to themselves), so the block the producer writes
// is also the one the next layer reads. With AVX2 a 16-channel block takes 0.8-1.3x the 8-lane
// one's time on D1-D9 (template_bench, Zen 3; D1 and D2 faster), less than the two layout
// transforms it saves.
std::optional<search::Config> FallbackForBlock(const search::ConfigSpace& space, const OpArgs& args,
                                               const target::TargetFacts& facts, int64_t block) {
  const nn::Conv2dAttrs a = *ReadAttrs(args);
  if (block < 1 || a.ic % block != 0 || block > 64) return std::nullopt;
  return FallbackWithBlock(space, a, facts, block);
}

// `stored`: c.out, or c.out with a fused tail (c.out is then computed inline in it).
absl::Status Apply(schedule::Schedule& s, const nn::DepthwiseNchwc& c, const te::Tensor& stored,
                   int64_t reg_n, bool unroll_kernel, bool pad_at_row) {
  Stage pad = s[c.pad];
  const auto& pa = Axes(c.pad);
  TESSEL_RETURN_IF_ERROR(pad.vectorize(pa[4]));

  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(c.out, "local"));
  if (!stored.op().same_as(c.out.op())) TESSEL_RETURN_IF_ERROR(s[c.out].compute_inline());
  Stage out = s[stored];
  const auto& oa = Axes(stored);  // n, cc, oh, ow, cb
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ow, out.split(oa[3], static_cast<int>(reg_n)));
  TESSEL_RETURN_IF_ERROR(out.reorder({oa[0], oa[1], oa[2], ow.outer, ow.inner, oa[4]}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, out.fuse(oa[0], oa[1]));
  TESSEL_ASSIGN_OR_RETURN(rows, out.fuse(rows, oa[2]));
  TESSEL_RETURN_IF_ERROR(out.parallel(rows));
  TESSEL_RETURN_IF_ERROR(out.unroll(ow.inner));
  TESSEL_RETURN_IF_ERROR(out.vectorize(oa[4]));
  if (!pad_at_row) {
    TESSEL_ASSIGN_OR_RETURN(ir::IterVar prow, pad.fuse(pa[0], pa[1]));
    TESSEL_ASSIGN_OR_RETURN(prow, pad.fuse(prow, pa[2]));
    TESSEL_RETURN_IF_ERROR(pad.parallel(prow));
  }

  Stage cc = s[acc];
  TESSEL_RETURN_IF_ERROR(cc.compute_at(out, ow.outer));
  const te::ComputeOpNode* op = acc.op().as<te::ComputeOpNode>();
  const auto& ca = op->axis;
  const auto& cr = op->reduce_axis;  // kh, kw
  TESSEL_RETURN_IF_ERROR(cc.reorder({ca[0], ca[1], ca[2], cr[0], cr[1], ca[3], ca[4]}));
  if (pad_at_row) TESSEL_RETURN_IF_ERROR(pad.compute_at(cc, ca[2]));
  if (unroll_kernel) {
    TESSEL_RETURN_IF_ERROR(cc.unroll(cr[0]));
    TESSEL_RETURN_IF_ERROR(cc.unroll(cr[1]));
  }
  TESSEL_RETURN_IF_ERROR(cc.unroll(ca[3]));
  TESSEL_RETURN_IF_ERROR(cc.vectorize(ca[4]));
  return absl::OkStatus();
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  const int64_t cb = config.split("tile_c")[1];
  const int64_t reg_n = config.split("tile_ow")[1];
  nn::DepthwiseNchwc c = nn::MakeDepthwiseNchwc(a, cb);
  te::Tensor stored = c.out;
  if (tail != nullptr) {
    stored = ApplyTail(c.out, *tail,
                       [cb](const std::vector<ir::Expr>& i) { return NchwcToLogical(i, cb); });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(Apply(p.schedule, c, stored, reg_n, config.knob("unroll_kernel") != 0,
                               config.knob("pad_at_row") != 0));
  p.args = {c.data, c.weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.oc, 1, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  p.prepare = [cb](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{PackChannels(in[0], cb), PackDepthwiseWeight(in[1], cb)};
  };
  p.finish = [](const std::vector<runtime::NDArray>& out)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{UnpackChannels(out[0])};
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template Make() {
  Template t{kName,
             "conv2d",
             "depthwise conv2d in NCHW[x]c: channel vectors x width tile",
             Space,
             Fallback,
             [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
               return InstantiateWithTail(config, args, nullptr);
             },
             [](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
                const OutputTail& tail) { return InstantiateWithTail(config, args, &tail); },
             [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
               const int64_t cb = config.split("tile_c")[1];
               const nn::Conv2dAttrs a = *ReadAttrs(args);
               return ExactBlocks(a.ic, a.oc, cb, cb);
             }};
  t.fallback_for_block = FallbackForBlock;
  return t;
}

TESSEL_REGISTER_TEMPLATE("cpu", Make());

}  // namespace
}  // namespace tessel::ops::x86
