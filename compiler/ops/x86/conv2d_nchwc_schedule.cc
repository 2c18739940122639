#include "compiler/ops/nn/shape.h"
#include "compiler/ops/x86/conv2d_nchwc_schedule.h"

#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/operation.h"

namespace tessel::ops::x86 {
namespace {

using nn::Axes;

using schedule::Stage;

// Largest per-iteration accumulator count: beyond it the register tile spills.
constexpr int64_t kMaxAccumulatorVectors = 28;

}  // namespace

int64_t LargestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

void DefineConv2dNchwcSpace(search::ConfigSpace& space, const nn::Conv2dAttrs& a) {
  space.define_split("tile_ic", a.ic, {.policy = search::SplitPolicy::kFactors, .num_outputs = 2});
  space.define_split("tile_oc", a.oc,
                     {.policy = search::SplitPolicy::kFactors, .num_outputs = 2,
                      .max_innermost = 64});
  space.define_split("tile_ow", a.ow(),
                     {.policy = search::SplitPolicy::kFactors, .num_outputs = 2,
                      .max_innermost = 32});
  space.define_knob("unroll_kw", {0, 1});
  space.define_knob("pad_at_tile", {0, 1});
}

// The fallback keeps reg_n x ceil(ocb / lanes) accumulator vectors near 28 of AVX-512's 32
// registers (half that with 16 registers), so each weight vector load feeds many FMAs:
//   ocb:   two vectors when oc allows (two weight loads then serve 2 x reg_n FMAs), else one,
//          else the largest divisor of oc up to one vector;
//   reg_n: the largest divisor of ow that keeps the accumulators in registers;
//   icb:   the largest divisor of ic up to 16 (a weight block of icb x ocb stays in L1);
//   unroll_kw: for kernels up to 3 wide;
//   pad_at_tile: 0 (padding per tile measured slower on Table 2's C1, C4, C7, C10 with 1 thread:
//                0.81-0.90 of oneDNN against 0.92-0.98; left for the tuner).
search::Config Conv2dNchwcFallback(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                   const TargetFacts& facts) {
  const int64_t lanes = std::max(facts.lanes(), 4);
  const int64_t registers = facts.vector_bits >= 512 ? kMaxAccumulatorVectors : 12;
  int64_t ocb;
  if (a.oc % (2 * lanes) == 0) {
    ocb = 2 * lanes;
  } else if (a.oc % lanes == 0) {
    ocb = lanes;
  } else {
    ocb = LargestDivisorAtMost(a.oc, lanes);
  }
  const int64_t vectors = (ocb + lanes - 1) / lanes;
  const int64_t reg_n = LargestDivisorAtMost(a.ow(), std::min<int64_t>(32, registers / vectors));
  const int64_t icb = LargestDivisorAtMost(a.ic, 16);
  nlohmann::json knobs = {{"tile_ic", {a.ic / icb, icb}},
                          {"tile_oc", {a.oc / ocb, ocb}},
                          {"tile_ow", {a.ow() / reg_n, reg_n}},
                          {"unroll_kw", a.kw <= 3 ? 1 : 0},
                          {"pad_at_tile", 0}};
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs", knobs}});
  TESSEL_CHECK(config.ok()) << "conv2d NCHWc fallback outside its space: "
                            << config.status().message();
  return *config;
}

Conv2dNchwcKnobs ReadConv2dNchwcKnobs(const search::Config& config) {
  Conv2dNchwcKnobs k;
  k.icb = config.split("tile_ic")[1];
  k.ocb = config.split("tile_oc")[1];
  k.reg_n = config.split("tile_ow")[1];
  k.unroll_kw = config.knob("unroll_kw") != 0;
  k.pad_at_tile = config.knob("pad_at_tile") != 0;
  return k;
}

absl::Status ScheduleConv2dNchwc(schedule::Schedule& s, const nn::Conv2dNchwc& c,
                                 const Conv2dNchwcKnobs& k) {
  // The padded input: rows in parallel, channel blocks vectorized.
  const bool padded = c.pad.op().as<te::ComputeOpNode>() != nullptr;
  if (padded && !k.pad_at_tile) {
    Stage pad = s[c.pad];
    const auto& pa = Axes(c.pad);
    TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, pad.fuse(pa[0], pa[1]));
    TESSEL_ASSIGN_OR_RETURN(rows, pad.fuse(rows, pa[2]));
    TESSEL_RETURN_IF_ERROR(pad.parallel(rows));
    TESSEL_RETURN_IF_ERROR(pad.vectorize(pa[4]));
  }

  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(c.out, "local"));
  Stage out = s[c.out];
  const auto& oa = Axes(c.out);  // n, occ, oh, ow, ocb
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ow, out.split(oa[3], static_cast<int>(k.reg_n)));
  TESSEL_RETURN_IF_ERROR(out.reorder({oa[0], oa[1], oa[2], ow.outer, ow.inner, oa[4]}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, out.fuse(oa[0], oa[1]));
  TESSEL_ASSIGN_OR_RETURN(rows, out.fuse(rows, oa[2]));
  TESSEL_RETURN_IF_ERROR(out.parallel(rows));
  TESSEL_RETURN_IF_ERROR(out.unroll(ow.inner));
  TESSEL_RETURN_IF_ERROR(out.vectorize(oa[4]));

  Stage cc = s[acc];
  TESSEL_RETURN_IF_ERROR(cc.compute_at(out, ow.outer));
  const te::ComputeOpNode* acc_op = acc.op().as<te::ComputeOpNode>();
  const auto& ca = acc_op->axis;         // n, occ, oh, ow, ocb
  const auto& cr = acc_op->reduce_axis;  // icc, kh, kw, icb
  TESSEL_RETURN_IF_ERROR(
      cc.reorder({ca[0], ca[1], ca[2], cr[0], cr[1], cr[2], cr[3], ca[3], ca[4]}));
  if (padded && k.pad_at_tile) {
    Stage pad = s[c.pad];
    TESSEL_RETURN_IF_ERROR(pad.vectorize(Axes(c.pad)[4]));
    TESSEL_RETURN_IF_ERROR(pad.compute_at(cc, ca[2]));
  }
  if (k.unroll_kw) TESSEL_RETURN_IF_ERROR(cc.unroll(cr[2]));
  TESSEL_RETURN_IF_ERROR(cc.unroll(ca[3]));
  TESSEL_RETURN_IF_ERROR(cc.vectorize(ca[4]));
  return absl::OkStatus();
}

}  // namespace tessel::ops::x86
