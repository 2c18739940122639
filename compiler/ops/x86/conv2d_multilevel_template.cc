// conv2d_multilevel.x86: conv2d (groups 1) in NCHW[x]c with the whole multi-level tiling decision
// as knobs, a search space in the manner of AutoTVM's GPU conv2d template and Ansor's CPU sketches
// ("SSRSRS"). The NCHWc template (conv2d_nchwc_schedule.h) fixes the loop structure and tunes a
// few sizes, so good configs are common in its space; here the structure itself is searched, and
// good configs are rare, which is what separates model-guided search from random (issue #21).
//
// Computation as conv2d_nchwc.x86 (data NCHW{icb}c, weight OIHW{icb}i{ocb}o, out NCHW{ocb}c, the
// packing done by prepare/finish). Knobs, in declaration order:
//   tile_oc      split of oc into 5: [o0, o1, o2, o3, ocb]; ocb is the output channel block
//   tile_oh      split of the output height into 4: [h0, h1, h2, h3]
//   tile_ow      split of the output width into 4: [w0, w1, w2, w3]
//   tile_ic      split of ic into 3: [i0, i1, icb]; icb is the input channel block
//   tile_kh, tile_kw   split of each kernel extent into 2: [k0, k1]
//   reorder_outer  the order of the outer reduction loops (i0, kh0, kw0)
//   reorder_inner  the order of the inner reduction loops (i1, kh1, kw1, icb)
//   vector_axis  0: vectorize the channel block ocb (innermost); 1: vectorize w3 (innermost, ocb
//                just outside it)
//   unroll_depth how many of the accumulator stage's innermost loops, the vectorized one apart,
//                are unrolled (0-4): the register tile's loops first, then the inner reduction's
//   parallel_depth  how many of the outer tile loops (o0, h0, w0) are fused with n into the
//                parallel loop (1-3; the rest run serially in each thread)
//   acc_at       where the accumulators (a cache_write in registers or on the stack) are
//                computed: 1 for the tile of levels 2 and 3, 2 for the level-3 tile only
//   pad_at       0: pad the whole input first (parallel over rows); 1: compute the padded window
//                of each accumulator tile right before it
// Loop nest of the output stage: n o0 h0 w0 | o1 h1 w1 | o2 h2 w2 | o3 h3 w3 ocb (levels 0-3),
// the accumulators computed inside level acc_at's last loop: R0 (reorder_outer), the level-2
// tile when acc_at is 1, R1 (reorder_inner), the level-3 tile.
// Filters (multilevel_tiling.h): a stack-sized accumulator tile and a bounded unrolled body.
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/conv2d_nchwc_schedule.h"
#include "compiler/ops/x86/multilevel_tiling.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/operation.h"

namespace tessel::ops::x86 {
namespace {

using schedule::Stage;

constexpr char kName[] = "conv2d_multilevel.x86";

struct LevelKnobs {
  std::vector<int64_t> oc, oh, ow, ic, kh, kw;  // split parts, outermost first
  std::vector<int> outer_order, inner_order;
  bool vector_w = false;
  int unroll_depth = 0, parallel_depth = 1, acc_at = 2;
  bool pad_at_tile = false;

  int64_t icb() const { return ic.back(); }
  int64_t ocb() const { return oc.back(); }
};

LevelKnobs ReadKnobs(const search::Config& c) {
  LevelKnobs k;
  k.oc = c.split("tile_oc");
  k.oh = c.split("tile_oh");
  k.ow = c.split("tile_ow");
  k.ic = c.split("tile_ic");
  k.kh = c.split("tile_kh");
  k.kw = c.split("tile_kw");
  k.outer_order = c.reorder("reorder_outer");
  k.inner_order = c.reorder("reorder_inner");
  k.vector_w = c.knob("vector_axis") == 1;
  k.unroll_depth = static_cast<int>(c.knob("unroll_depth"));
  k.parallel_depth = static_cast<int>(c.knob("parallel_depth"));
  k.acc_at = static_cast<int>(c.knob("acc_at"));
  k.pad_at_tile = c.knob("pad_at") == 1;
  return k;
}

// The extents of the accumulator stage's loops from the innermost out, the vectorized loop left
// out: the level-3 tile (w3, h3, o3, or with vector_w: ocb, h3, o3), then the inner reduction in
// reorder_inner's order reversed. What unroll_depth counts.
std::vector<int64_t> UnrollCandidates(const LevelKnobs& k) {
  std::vector<int64_t> extents = {k.vector_w ? k.ocb() : k.ow[3], k.oh[3], k.oc[3]};
  const int64_t inner[] = {k.ic[1], k.kh[1], k.kw[1], k.icb()};
  for (auto it = k.inner_order.rbegin(); it != k.inner_order.rend(); ++it) {
    extents.push_back(inner[*it]);
  }
  return extents;
}

int64_t AccumulatorBytes(const LevelKnobs& k) {
  int64_t positions = k.oc[3] * k.oh[3] * k.ow[3];
  if (k.acc_at == 1) positions *= k.oc[2] * k.oh[2] * k.ow[2];
  return positions * k.ocb() * 4;
}

absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  if (a.groups != 1) {
    return ArgReader(kName, args)
        .Error("'groups' must be 1 (grouped convolutions: conv2d_nchw.x86)");
  }
  return a;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  using search::SplitPolicy;
  search::ConfigSpace space;
  space.define_split("tile_oc", a.oc,
                     {.policy = SplitPolicy::kFactors, .num_outputs = 5, .max_innermost = 64});
  space.define_split("tile_oh", a.oh(), {.policy = SplitPolicy::kFactors, .num_outputs = 4});
  space.define_split("tile_ow", a.ow(), {.policy = SplitPolicy::kFactors, .num_outputs = 4});
  space.define_split("tile_ic", a.ic,
                     {.policy = SplitPolicy::kFactors, .num_outputs = 3, .max_innermost = 64});
  space.define_split("tile_kh", a.kh, {.policy = SplitPolicy::kFactors, .num_outputs = 2});
  space.define_split("tile_kw", a.kw, {.policy = SplitPolicy::kFactors, .num_outputs = 2});
  space.define_reorder("reorder_outer", 3);
  space.define_reorder("reorder_inner", 4);
  space.define_knob("vector_axis", {0, 1});
  space.define_knob("unroll_depth", {0, 1, 2, 3, 4});
  space.define_knob("parallel_depth", {1, 2, 3});
  space.define_knob("acc_at", {1, 2});
  space.define_knob("pad_at", {0, 1});
  // One filter reading the knobs once: sampling and neighbour moves call it on every point tried.
  space.AddFilter(
      "accumulators of at most 64 KiB, at most 512 unrolled copies", [](const search::Config& c) {
        const LevelKnobs k = ReadKnobs(c);
        return AccumulatorBytes(k) <= kMaxAccumulatorBytes &&
               UnrolledCopies(UnrollCandidates(k), k.unroll_depth) <= kMaxUnrolledCopies;
      });
  return space;
}

// The fallback is the NCHWc template's fallback in this structure: its register tile as the
// level-3 tile (accumulators at level 2), its row blocks at level 0, the whole reduction inside
// the accumulator stage in the order icc, kh, kw, icb, and the tile's loops unrolled. Channel
// blocks outside rows (oc_inner 0) put the channel blocks at level 0, otherwise at level 1.
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Conv2dAttrs a = *ReadAttrs(args);
  search::ConfigSpace nchwc;
  DefineConv2dNchwcSpace(nchwc, a);
  const Conv2dNchwcKnobs n = ReadConv2dNchwcKnobs(Conv2dNchwcFallback(nchwc, a, facts));
  const int64_t occ = a.oc / n.ocb;
  nlohmann::json knobs = {{"tile_oc", n.oc_inner ? std::vector<int64_t>{1, occ, 1, 1, n.ocb}
                                                 : std::vector<int64_t>{occ, 1, 1, 1, n.ocb}},
                          {"tile_oh", {a.oh() / n.reg_h, 1, 1, n.reg_h}},
                          {"tile_ow", {1, a.ow() / n.reg_n, 1, n.reg_n}},
                          {"tile_ic", {1, a.ic / n.icb, n.icb}},
                          {"tile_kh", {1, a.kh}},
                          {"tile_kw", {1, a.kw}},
                          {"reorder_outer", {0, 1, 2}},
                          {"reorder_inner", {0, 1, 2, 3}},
                          {"vector_axis", 0},
                          {"unroll_depth", 3},
                          {"parallel_depth", 3},
                          {"acc_at", 2},
                          {"pad_at", 0}};
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs", knobs}});
  TESSEL_CHECK(config.ok()) << "conv2d_multilevel fallback outside its space: "
                            << config.status().message();
  return *config;
}

absl::Status Schedule(schedule::Schedule& s, const nn::Conv2dNchwc& c, const LevelKnobs& k,
                      const te::Tensor& stored) {
  const bool padded = c.pad.op().as<te::ComputeOpNode>() != nullptr;
  if (!k.pad_at_tile) TESSEL_RETURN_IF_ERROR(SchedulePaddedInput(s, c));
  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(c.out, "local"));
  if (!stored.op().same_as(c.out.op())) TESSEL_RETURN_IF_ERROR(s[c.out].compute_inline());

  // The output stage: levels 0-3 of o, h, w, then the channel block.
  Stage out = s[stored];
  const auto& oa = nn::Axes(stored);  // n, occ, oh, ow, ocb
  TESSEL_ASSIGN_OR_RETURN(auto o, SplitLevels(out, oa[1], {k.oc.begin(), k.oc.end() - 1}));
  TESSEL_ASSIGN_OR_RETURN(auto h, SplitLevels(out, oa[2], k.oh));
  TESSEL_ASSIGN_OR_RETURN(auto w, SplitLevels(out, oa[3], k.ow));
  std::vector<ir::IterVar> order = {oa[0]};
  for (int level = 0; level < 4; ++level) order.insert(order.end(), {o[level], h[level], w[level]});
  order.push_back(oa[4]);
  TESSEL_RETURN_IF_ERROR(out.reorder(order));
  TESSEL_RETURN_IF_ERROR(FuseParallel(out, order, k.parallel_depth).status());
  TESSEL_RETURN_IF_ERROR(out.vectorize(oa[4]));
  // The accumulators go after the last loop of level acc_at (w1 or w2; never fused).
  const ir::IterVar at = order[3 * (k.acc_at + 1)];

  Stage cc = s[acc];
  TESSEL_RETURN_IF_ERROR(cc.compute_at(out, at));
  const te::ComputeOpNode* acc_op = acc.op().as<te::ComputeOpNode>();
  const auto& ca = acc_op->axis;         // n, occ, oh, ow, ocb
  const auto& cr = acc_op->reduce_axis;  // icc, kh, kw, icb
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ao, cc.split(ca[1], static_cast<int>(k.oc[3])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ah, cc.split(ca[2], static_cast<int>(k.oh[3])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult aw, cc.split(ca[3], static_cast<int>(k.ow[3])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ri, cc.split(cr[0], static_cast<int>(k.ic[1])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult rh, cc.split(cr[1], static_cast<int>(k.kh[1])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult rw, cc.split(cr[2], static_cast<int>(k.kw[1])));
  const ir::IterVar outer_reduce[] = {ri.outer, rh.outer, rw.outer};
  const ir::IterVar inner_reduce[] = {ri.inner, rh.inner, rw.inner, cr[3]};
  std::vector<ir::IterVar> acc_order = {ca[0]};
  for (int r : k.outer_order) acc_order.push_back(outer_reduce[r]);
  acc_order.insert(acc_order.end(), {ao.outer, ah.outer, aw.outer});
  for (int r : k.inner_order) acc_order.push_back(inner_reduce[r]);
  std::vector<ir::IterVar> tile =
      k.vector_w ? std::vector<ir::IterVar>{ao.inner, ah.inner, ca[4], aw.inner}
                 : std::vector<ir::IterVar>{ao.inner, ah.inner, aw.inner, ca[4]};
  acc_order.insert(acc_order.end(), tile.begin(), tile.end());
  TESSEL_RETURN_IF_ERROR(cc.reorder(acc_order));
  TESSEL_RETURN_IF_ERROR(cc.vectorize(acc_order.back()));
  // Unrolled: the loops just outside the vectorized one, from the inside out.
  for (int i = 0; i < k.unroll_depth; ++i) {
    TESSEL_RETURN_IF_ERROR(cc.unroll(acc_order[acc_order.size() - 2 - i]));
  }
  if (padded && k.pad_at_tile) {
    Stage pad = s[c.pad];
    TESSEL_RETURN_IF_ERROR(pad.vectorize(nn::Axes(c.pad)[4]));
    TESSEL_RETURN_IF_ERROR(pad.compute_at(cc, ca[0]));
  }
  return absl::OkStatus();
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts&, const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  const LevelKnobs k = ReadKnobs(config);
  nn::Conv2dNchwc c = nn::MakeConv2dNchwc(a, k.icb(), k.ocb());
  const te::Tensor stored = StoredConv2dNchwc(c, k.ocb(), tail);
  schedule::Schedule s = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(Schedule(s, c, k, stored));
  return Conv2dNchwcProgram(s, a, c, k.icb(), k.ocb(), stored, tail);
}

Template Make() {
  Template t = TailFusingTemplate(
      kName, "conv2d",
      "conv2d in NCHW[x]c, every loop tiled in levels: the whole tiling decision searched", Space,
      Fallback, Instantiate);
  t.channel_blocks = [](const search::Config& config, const OpArgs& args,
                        const target::TargetFacts&) {
    const LevelKnobs k = ReadKnobs(config);
    const nn::Conv2dAttrs a = *ReadAttrs(args);
    return ExactBlocks(a.ic, a.oc, k.icb(), k.ocb());
  };
  return t;
}

TESSEL_REGISTER_TEMPLATE("cpu", Make());

}  // namespace
}  // namespace tessel::ops::x86
