#include "compiler/ops/x86/conv2d_nchwc_schedule.h"

#include <algorithm>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/ops/host_layout.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/output_tail.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/operation.h"

namespace tessel::ops::x86 {
namespace {

using nn::Axes;

using schedule::Stage;

// Largest register tile reg_h x reg_n in the space: its statements are unrolled.
constexpr int64_t kMaxTilePositions = 32;

// Candidate orders of the reduction loops (0: icc, 1: kh, 2: kw, 3: icb), outermost first. The
// first is the fallback's; the others move the weight and input streams differently:
constexpr int kReduceOrders[][4] = {
    {0, 1, 2, 3},  // icc, kh, kw, icb: a channel block's whole window, contiguous icb inside
    {1, 2, 0, 3},  // kh, kw, icc, icb: one window position over all input channels
    {0, 1, 3, 2},  // icc, kh, icb, kw: kw inside: consecutive FMAs read neighbouring columns
    {1, 0, 2, 3},  // kh, icc, kw, icb: one kernel row over all channel blocks
    {0, 3, 1, 2},  // icc, icb, kh, kw: one input channel's window at a time
    {1, 2, 3, 0},  // kh, kw, icb, icc: icc inside: every load strides by a channel block
};

// The fallback's register tile: reg_h x reg_n output positions x `vectors` channel vectors of
// accumulators, at most half the vector registers (8 with AVX2's 16, 16 with AVX-512's 32): the
// rest hold the weight vectors, the broadcast input and what the loop needs. Measured with
// template_bench on Table 2's C3-C11 (Zen 3, AVX2, 2 threads), every best tile has 7 or 8
// accumulators, and 12 to 16 run 1.2-2.4x slower; the 200-trial tunings of the same layers on
// Zen 4 (AVX-512, results/tuned_table2/znver4) end at 14 to 16 (C3, C4, C5 at exactly this
// rule's tile), where the earlier rule took 28.
//   vectors: 2, 1 or 4 vectors of channels (one weight load feeds reg_h x reg_n FMAs per
//            vector), the first of these that gives the most accumulators;
//   reg_n:   the largest divisor of ow that fits the budget, then
//   reg_h:   the largest divisor of oh that fits what the columns leave (narrow outputs such as
//            Table 2's 14- and 7-wide ones would otherwise use a sliver of the registers).
struct RegisterTile {
  int64_t ocb = 1, reg_h = 1, reg_n = 1;
  int64_t accumulators(int64_t lanes) const { return (ocb + lanes - 1) / lanes * reg_h * reg_n; }
};

RegisterTile ChooseRegisterTile(const nn::Conv2dAttrs& a, const target::TargetFacts& facts) {
  const int64_t lanes = std::max(facts.lanes(), 4);
  const int64_t budget = std::max(facts.vector_registers / 2, 1);
  std::vector<int64_t> blocks;
  for (int64_t vectors : {2, 1, 4}) {
    if (a.oc % (vectors * lanes) == 0) blocks.push_back(vectors * lanes);
  }
  if (blocks.empty()) blocks.push_back(LargestDivisorAtMost(a.oc, lanes));
  RegisterTile best;
  bool found = false;
  for (int64_t ocb : blocks) {
    RegisterTile t{.ocb = ocb};
    const int64_t positions = std::max<int64_t>(budget / ((ocb + lanes - 1) / lanes), 1);
    t.reg_n = LargestDivisorAtMost(a.ow(), std::min(positions, kMaxTilePositions));
    t.reg_h = LargestDivisorAtMost(a.oh(), positions / t.reg_n);
    if (!found || t.accumulators(lanes) > best.accumulators(lanes)) best = t, found = true;
  }
  return best;
}

}  // namespace

int64_t LargestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

void DefineConv2dNchwcSpace(search::ConfigSpace& space, const nn::Conv2dAttrs& a) {
  space.define_split("tile_ic", a.ic, {.policy = search::SplitPolicy::kFactors, .num_outputs = 2});
  space.define_split(
      "tile_oc", a.oc,
      {.policy = search::SplitPolicy::kFactors, .num_outputs = 2, .max_innermost = 64});
  space.define_split(
      "tile_ow", a.ow(),
      {.policy = search::SplitPolicy::kFactors, .num_outputs = 2, .max_innermost = 32});
  space.define_knob("unroll_kw", {0, 1});
  space.define_knob("pad_at_tile", {0, 1});
  space.define_split("tile_oh", a.oh(),
                     {.policy = search::SplitPolicy::kFactors,
                      .num_outputs = 2,
                      .max_innermost = kMaxTilePositions});
  search::ReorderOptions orders{.policy = search::ReorderPolicy::kCandidates};
  for (const auto& order : kReduceOrders) orders.candidates.push_back({order, order + 4});
  space.define_reorder("reorder_reduce", 4, orders);
  space.define_knob("oc_inner", {0, 1});
  space.AddFilter("register tile of at most 32 positions", [](const search::Config& c) {
    return c.split("tile_oh")[1] * c.split("tile_ow")[1] <= kMaxTilePositions;
  });
}

// The fallback: the register tile above;
//   icb:   the largest divisor of ic up to 16 (a weight block of icb x ocb stays in L1);
//   unroll_kw: for kernels up to 3 wide;
//   pad_at_tile: 0 (padding per tile measured slower on Table 2's C1, C4, C7, C10 with 1 thread
//                on Zen 4: 0.81-0.90 of oneDNN against 0.92-0.98; on Zen 3 the sweep above found
//                0 as good or better on every layer; left for the tuner);
//   reorder_reduce: value 0 (icc, kh, kw, icb);
//   oc_inner: 1 (rows outside channel blocks) where the input (one image) is at least the
//             weights: a row band's input then stays in cache across every channel block, and
//             the smaller weights are what is streamed again; 0 otherwise. On Zen 3 (2 threads,
//             template_bench, median of 7 interleaved rounds) this ran C5 1.36x and C8 1.15x
//             faster than value 0 and left C1, C3, C4 within noise (0.98-1.01); the 200-trial
//             Zen 3 tunings (results/tuned_table2/znver3) chose 1 on C3, C5 and C8.
search::Config Conv2dNchwcFallback(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                   const target::TargetFacts& facts) {
  const RegisterTile tile = ChooseRegisterTile(a, facts);
  const int64_t icb = LargestDivisorAtMost(a.ic, 16);
  const int64_t input = a.ic * a.h * a.w, weights = a.oc * a.ic * a.kh * a.kw;
  nlohmann::json knobs = {{"tile_ic", {a.ic / icb, icb}},
                          {"tile_oc", {a.oc / tile.ocb, tile.ocb}},
                          {"tile_ow", {a.ow() / tile.reg_n, tile.reg_n}},
                          {"unroll_kw", a.kw <= 3 ? 1 : 0},
                          {"pad_at_tile", 0},
                          {"tile_oh", {a.oh() / tile.reg_h, tile.reg_h}},
                          {"reorder_reduce", {0, 1, 2, 3}},
                          {"oc_inner", input >= weights ? 1 : 0}};
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
  k.reg_h = config.split("tile_oh")[1];
  k.reduce_order = config.reorder("reorder_reduce");
  k.oc_inner = config.knob("oc_inner") != 0;
  return k;
}

ChannelBlocks ExactBlocks(int64_t ic, int64_t oc, int64_t in_block, int64_t out_block) {
  auto exact = [](int64_t channels, int64_t block) {
    return block > 0 && channels % block == 0 ? block : 0;
  };
  return {exact(ic, in_block), exact(oc, out_block)};
}

std::vector<ir::Expr> NchwcToLogical(const std::vector<ir::Expr>& blocked, int64_t block) {
  TESSEL_CHECK(blocked.size() == 5) << "an NCHW[x]c index has 5 entries, got " << blocked.size();
  return {blocked[0], blocked[1] * nn::Dim(block) + blocked[4], blocked[2], blocked[3]};
}

absl::Status SchedulePaddedInput(schedule::Schedule& s, const nn::Conv2dNchwc& c) {
  if (c.pad.op().as<te::ComputeOpNode>() == nullptr) return absl::OkStatus();
  Stage pad = s[c.pad];
  const auto& pa = Axes(c.pad);
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, pad.fuse(pa[0], pa[1]));
  TESSEL_ASSIGN_OR_RETURN(rows, pad.fuse(rows, pa[2]));
  TESSEL_RETURN_IF_ERROR(pad.parallel(rows));
  return pad.vectorize(pa[4]);
}

te::Tensor StoredConv2dNchwc(const nn::Conv2dNchwc& c, int64_t ocb, const OutputTail* tail) {
  if (tail == nullptr) return c.out;
  return ApplyTail(c.out, *tail,
                   [ocb](const std::vector<ir::Expr>& i) { return NchwcToLogical(i, ocb); });
}

OpProgram Conv2dNchwcProgram(schedule::Schedule s, const nn::Conv2dAttrs& a,
                             const nn::Conv2dNchwc& c, int64_t icb, int64_t ocb,
                             const te::Tensor& stored, const OutputTail* tail) {
  OpProgram p;
  p.schedule = std::move(s);
  p.args = {c.data, c.weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.oc, a.ic, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  p.prepare = [icb, ocb](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{PackChannels(in[0], icb), PackConvWeight(in[1], icb, ocb)};
  };
  p.finish = [](const std::vector<runtime::NDArray>& out)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{UnpackChannels(out[0])};
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

absl::Status ScheduleConv2dNchwc(schedule::Schedule& s, const nn::Conv2dNchwc& c,
                                 const Conv2dNchwcKnobs& k, const te::Tensor& stored) {
  const bool padded = c.pad.op().as<te::ComputeOpNode>() != nullptr;
  if (!k.pad_at_tile) TESSEL_RETURN_IF_ERROR(SchedulePaddedInput(s, c));

  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(c.out, "local"));
  // With a tail, its stage takes the output loops and reads the accumulators directly.
  if (!stored.op().same_as(c.out.op())) TESSEL_RETURN_IF_ERROR(s[c.out].compute_inline());
  Stage out = s[stored];
  const auto& oa = Axes(stored);  // n, occ, oh, ow, ocb
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ow, out.split(oa[3], static_cast<int>(k.reg_n)));
  // reg_h 1 leaves oh unsplit: the loop nest (and its names) of the one-row tile.
  ir::IterVar rows_outer = oa[2];
  std::vector<ir::IterVar> tile;  // the register tile's spatial loops, outermost first
  if (k.reg_h > 1) {
    TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult oh, out.split(oa[2], static_cast<int>(k.reg_h)));
    rows_outer = oh.outer;
    tile.push_back(oh.inner);
  }
  tile.push_back(ow.inner);
  std::vector<ir::IterVar> order = k.oc_inner ? std::vector<ir::IterVar>{oa[0], rows_outer, oa[1]}
                                              : std::vector<ir::IterVar>{oa[0], oa[1], rows_outer};
  order.push_back(ow.outer);
  order.insert(order.end(), tile.begin(), tile.end());
  order.push_back(oa[4]);
  TESSEL_RETURN_IF_ERROR(out.reorder(order));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, out.fuse(order[0], order[1]));
  TESSEL_ASSIGN_OR_RETURN(rows, out.fuse(rows, order[2]));
  TESSEL_RETURN_IF_ERROR(out.parallel(rows));
  for (const ir::IterVar& v : tile) TESSEL_RETURN_IF_ERROR(out.unroll(v));
  TESSEL_RETURN_IF_ERROR(out.vectorize(oa[4]));

  // The accumulators: n, occ (extent 1 here), the reduction, then the register tile.
  Stage cc = s[acc];
  TESSEL_RETURN_IF_ERROR(cc.compute_at(out, ow.outer));
  const te::ComputeOpNode* acc_op = acc.op().as<te::ComputeOpNode>();
  const auto& ca = acc_op->axis;         // n, occ, oh, ow, ocb
  const auto& cr = acc_op->reduce_axis;  // icc, kh, kw, icb
  TESSEL_CHECK(k.reduce_order.size() == 4) << "reduce_order must permute 4 axes";
  std::vector<ir::IterVar> acc_order = {ca[0], ca[1]};
  // One row: oh (extent 1) stays outside the reduction, as the one-row schedule always had it.
  if (k.reg_h == 1) acc_order.push_back(ca[2]);
  for (int r : k.reduce_order) acc_order.push_back(cr[r]);
  if (k.reg_h > 1) acc_order.push_back(ca[2]);
  acc_order.push_back(ca[3]);
  acc_order.push_back(ca[4]);
  TESSEL_RETURN_IF_ERROR(cc.reorder(acc_order));
  if (padded && k.pad_at_tile) {
    Stage pad = s[c.pad];
    TESSEL_RETURN_IF_ERROR(pad.vectorize(Axes(c.pad)[4]));
    // Above the reduction: the window of the whole register tile.
    TESSEL_RETURN_IF_ERROR(pad.compute_at(cc, k.reg_h == 1 ? ca[2] : ca[1]));
  }
  if (k.unroll_kw) TESSEL_RETURN_IF_ERROR(cc.unroll(cr[2]));
  if (k.reg_h > 1) TESSEL_RETURN_IF_ERROR(cc.unroll(ca[2]));
  TESSEL_RETURN_IF_ERROR(cc.unroll(ca[3]));
  TESSEL_RETURN_IF_ERROR(cc.vectorize(ca[4]));
  return absl::OkStatus();
}

}  // namespace tessel::ops::x86
