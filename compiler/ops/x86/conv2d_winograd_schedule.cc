#include "compiler/ops/x86/conv2d_winograd_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/ir/op.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using schedule::IterVar;
using schedule::Stage;

constexpr int64_t kTileRows[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16};
// The widest register tile has this many vector columns.
constexpr int64_t kMaxColumnVectors = 4;

int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// Channel block: one vector of float32 (at least 4, the narrowest SIMD).
int64_t Block(const target::TargetFacts& facts) { return std::max(facts.lanes(), 4); }

// Accumulators, one vector per column of U and the broadcast row value must fit the registers.
bool RegisterTileFits(int64_t rows, int64_t columns, const target::TargetFacts& facts) {
  const int64_t vectors = columns / Block(facts);
  return rows * vectors + vectors + 1 <= facts.vector_registers;
}

const std::vector<IterVar>& Axes(const te::Tensor& t) {
  return t.op().as<te::ComputeOpNode>()->axis;
}

absl::Status Unroll(Stage& stage, const std::vector<IterVar>& axes, bool unroll) {
  if (!unroll) return absl::OkStatus();
  for (const IterVar& iv : axes) TESSEL_RETURN_IF_ERROR(stage.unroll(iv));
  return absl::OkStatus();
}

// Fuses adjacent loops outer .. inner (outermost first) and runs the result in parallel when
// the target has more than one core.
absl::Status FuseParallel(Stage& stage, const std::vector<IterVar>& loops,
                          const target::TargetFacts& facts) {
  IterVar fused = loops.front();
  for (size_t i = 1; i < loops.size(); ++i) {
    TESSEL_ASSIGN_OR_RETURN(fused, stage.fuse(fused, loops[i]));
  }
  if (facts.cores > 1) TESSEL_RETURN_IF_ERROR(stage.parallel(fused));
  return absl::OkStatus();
}

// The padded input as its own stage: rows in parallel, the channel block vectorized.
absl::Status SchedulePad(schedule::Schedule& s, const WinogradConv& c,
                         const target::TargetFacts& facts) {
  Stage st = s[c.padded];
  const auto& ax = Axes(c.padded);  // n, cb, y, x, ci
  TESSEL_RETURN_IF_ERROR(FuseParallel(st, {ax[0], ax[1], ax[2]}, facts));
  return st.vectorize(ax[4]);
}

// V: per (tile, channel block) the whole alpha x alpha transform, channel block vectorized.
absl::Status ScheduleDataTransform(schedule::Schedule& s, const WinogradConv& c,
                                   const WinogradKnobs& k, const target::TargetFacts& facts) {
  Stage st = s[c.v];
  const auto& ax = Axes(c.v);  // eps, nu, p, c
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ch, st.split(ax[3], static_cast<int>(c.layout.block)));
  std::vector<IterVar> outer = k.transform_order == 0 ? std::vector<IterVar>{ax[2], ch.outer}
                                                      : std::vector<IterVar>{ch.outer, ax[2]};
  TESSEL_RETURN_IF_ERROR(st.reorder({outer[0], outer[1], ax[0], ax[1], ch.inner}));
  TESSEL_RETURN_IF_ERROR(FuseParallel(st, outer, facts));
  TESSEL_RETURN_IF_ERROR(Unroll(st, {ax[0], ax[1]}, k.transform_unroll));
  return st.vectorize(ch.inner);
}

// M: gemm.cc's register tiling per (eps, nu): tile_p rows (tiles, unrolled) x tile_oc columns
// (output channels, vectorized) accumulated in registers over the input channels.
absl::Status ScheduleGemm(schedule::Schedule& s, const WinogradConv& c, const WinogradKnobs& k,
                          const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(c.m, "local"));
  Stage st = s[c.m];
  const auto& ax = Axes(c.m);  // eps, nu, p, o
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult p, st.split(ax[2], static_cast<int>(k.tile_p)));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult o, st.split(ax[3], static_cast<int>(k.tile_oc)));
  const IterVar& first = k.gemm_order == 0 ? o.outer : p.outer;
  const IterVar& second = k.gemm_order == 0 ? p.outer : o.outer;
  TESSEL_RETURN_IF_ERROR(st.reorder({ax[0], ax[1], first, second, p.inner, o.inner}));
  TESSEL_RETURN_IF_ERROR(FuseParallel(st, {ax[0], ax[1]}, facts));
  TESSEL_RETURN_IF_ERROR(st.vectorize(o.inner));
  TESSEL_RETURN_IF_ERROR(s[acc].compute_at(st, second));

  Stage at = s[acc];
  const auto* op = acc.op().as<te::ComputeOpNode>();
  const IterVar &ai = op->axis[2], &aj = op->axis[3], &ak = op->reduce_axis[0];
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult kk, at.split(ak, static_cast<int>(k.unroll_k)));
  TESSEL_RETURN_IF_ERROR(at.reorder({op->axis[0], op->axis[1], kk.outer, kk.inner, ai, aj}));
  if (k.unroll_k > 1) TESSEL_RETURN_IF_ERROR(at.unroll(kk.inner));
  TESSEL_RETURN_IF_ERROR(at.unroll(ai));
  return at.vectorize(aj);
}

// Y: per (tile, output channel block) the m x m inverse transform, channel block vectorized.
// With a tail, its stage takes these loops and computes the transform inline.
absl::Status ScheduleInverse(schedule::Schedule& s, const WinogradConv& c, const WinogradKnobs& k,
                             const target::TargetFacts& facts) {
  if (!c.stored.op().same_as(c.out.op())) TESSEL_RETURN_IF_ERROR(s[c.out].compute_inline());
  Stage st = s[c.stored];
  const auto& ax = Axes(c.stored);  // n, ob, th, vh, tw, vw, c
  if (k.transform_order == 0) {
    TESSEL_RETURN_IF_ERROR(st.reorder({ax[0], ax[1], ax[2], ax[4], ax[3], ax[5], ax[6]}));
    TESSEL_RETURN_IF_ERROR(FuseParallel(st, {ax[0], ax[1], ax[2]}, facts));
  } else {
    TESSEL_RETURN_IF_ERROR(st.reorder({ax[0], ax[2], ax[4], ax[1], ax[3], ax[5], ax[6]}));
    TESSEL_RETURN_IF_ERROR(FuseParallel(st, {ax[0], ax[2], ax[4]}, facts));
  }
  TESSEL_RETURN_IF_ERROR(Unroll(st, {ax[3], ax[5]}, k.transform_unroll));
  return st.vectorize(ax[6]);
}

// Whether the pad stage only copies (no padding to add).
bool PadIsCopy(const nn::WinogradGeometry& geo) {
  const nn::Conv2dAttrs& a = geo.conv;
  return a.pad[0] == 0 && a.pad[1] == 0 && geo.padded_h() == a.h && geo.padded_w() == a.w;
}

int NonZeros(const nn::Matrix& mat) {
  int n = 0;
  for (const std::vector<double>& row : mat)
    n += static_cast<int>(std::count_if(row.begin(), row.end(), [](double x) { return x != 0; }));
  return n;
}

// Estimated time of F(m x m) in multiply-adds per core, for choosing m. F(4x4) does 2.25
// multiplies per output and channel pair against F(2x2)'s 4, but over whole 4 x 4 tiles (more
// overhang on small outputs), with costlier transforms, and it reads 36 / 16 times as many
// transformed weights: on late layers with few tiles per weight the product waits for memory.
double WinogradCost(const nn::Conv2dAttrs& a, int m, const target::TargetFacts& facts) {
  const nn::WinogradGeometry geo{a, m};
  const nn::WinogradMatrices mats = *nn::Winograd3x3(m);
  const double icp = RoundUp(a.ic, Block(facts)), ocp = RoundUp(a.oc, Block(facts));
  const double alpha = geo.alpha(), tiles = static_cast<double>(geo.tiles());
  const double product = alpha * alpha * tiles * icp * ocp;
  // The transforms as written out (zero entries dropped, row sums shared between outputs): per
  // tile and channel, 2 alpha nnz(B^T) for the data and (alpha + m) nnz(A^T) for the inverse.
  const double transforms =
      tiles * (2 * alpha * NonZeros(mats.bt) * icp + (alpha + m) * NonZeros(mats.at) * ocp);
  // The weights stream in once per run at about one float per 6 multiply-adds (measured: the
  // 37.7 MB of F(4x4) on ResNet-18's C12 layer in 0.96 ms on one core, 0.53 ms on two: each
  // core streams its share, so the cores cancel out).
  const double weights = alpha * alpha * icp * ocp;
  return std::max(product + transforms, 6 * weights);
}

}  // namespace

void DefineConv2dWinogradSpace(search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                               const target::TargetFacts& facts) {
  const int64_t block = Block(facts);
  const int64_t icp = RoundUp(a.ic, block), ocp = RoundUp(a.oc, block);
  space.define_knob("tile_size", {2, 4});
  search::SplitOptions oc;
  oc.policy = search::SplitPolicy::kCandidates;
  for (int64_t v = 1; v <= kMaxColumnVectors; ++v) {
    if (ocp % (v * block) == 0) oc.candidates.push_back({ocp / (v * block), v * block});
  }
  space.define_split("tile_oc", ocp, oc);
  space.define_knob("tile_p", std::vector<int64_t>(std::begin(kTileRows), std::end(kTileRows)));
  search::SplitOptions kopt;
  kopt.policy = search::SplitPolicy::kFactors;
  kopt.max_innermost = 8;
  space.define_split("tile_k", icp, kopt);
  space.define_knob("gemm_order", {0, 1});
  space.define_knob("transform_unroll", {1, 0});
  space.define_knob("transform_order", {0, 1});
  space.define_knob("pad_inline", {0, 1});
  space.AddFilter("register_tile_fits_registers", [facts](const search::Config& c) {
    return RegisterTileFits(c.knob("tile_p"), c.split("tile_oc")[1], facts);
  });
}

WinogradKnobs ReadWinogradKnobs(const search::Config& config) {
  WinogradKnobs k;
  k.m = static_cast<int>(config.knob("tile_size"));
  k.tile_oc = config.split("tile_oc")[1];
  k.tile_p = config.knob("tile_p");
  k.unroll_k = config.split("tile_k")[1];
  k.gemm_order = static_cast<int>(config.knob("gemm_order"));
  k.transform_unroll = config.knob("transform_unroll") != 0;
  k.transform_order = static_cast<int>(config.knob("transform_order"));
  k.pad_inline = config.knob("pad_inline") != 0;
  return k;
}

search::Config Conv2dWinogradFallback(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                      const target::TargetFacts& facts) {
  const int64_t block = Block(facts);
  const int64_t ocp = RoundUp(a.oc, block);
  int best_m = 4;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int m : {2, 4}) {
    const double cost = WinogradCost(a, m, facts);
    if (cost < best_cost) best_cost = cost, best_m = m;
  }
  // Columns: two vectors when they divide the channels (one broadcast feeds two FMAs), else one.
  const int64_t columns = ocp % (2 * block) == 0 ? 2 * block : block;
  // Rows: the candidate that wastes the fewest padded tiles, larger first among equals.
  const nn::WinogradGeometry geo{a, best_m};
  int64_t rows = 1;
  double best_waste = std::numeric_limits<double>::infinity();
  for (int64_t r : kTileRows) {
    if (!RegisterTileFits(r, columns, facts) || r > geo.tiles()) continue;
    // Padded rows cost their share of work; short tiles pay the per-tile overhead.
    const double waste = static_cast<double>(RoundUp(geo.tiles(), r)) / geo.tiles() * (1 + 1.5 / r);
    if (waste <= best_waste) best_waste = waste, rows = r;
  }
  // Value indices (DefineConv2dWinogradSpace's declarations); unnamed knobs take their first.
  std::vector<int64_t> idx(space.num_knobs(), 0);
  auto position = [&](const std::string& name) {
    for (int i = 0; i < space.num_knobs(); ++i) {
      if (space.knob_name(i) == name) return i;
    }
    TESSEL_UNREACHABLE() << "no knob " << name;
  };
  auto knob = [&](const std::string& name) -> int64_t& { return idx[position(name)]; };
  knob("tile_size") = best_m == 2 ? 0 : 1;
  for (int64_t v = 1, i = 0; v <= kMaxColumnVectors; ++v) {
    if (ocp % (v * block) != 0) continue;
    if (v * block == columns) knob("tile_oc") = i;
    ++i;
  }
  knob("tile_p") =
      std::find(std::begin(kTileRows), std::end(kTileRows), rows) - std::begin(kTileRows);
  // Padding through guards in the data transform: as fast as a padding stage (measured), with
  // one parallel launch and one pass over the input less.
  knob("pad_inline") = 1;
  // tile_k: no unrolling of the reduction (the FMAs of one step already fill the pipes).
  int64_t& k_index = knob("tile_k");
  for (k_index = 0; k_index < space.knob_size(position("tile_k")); ++k_index) {
    absl::StatusOr<search::Config> c = space.FromValueIndices(idx);
    TESSEL_CHECK(c.ok()) << c.status().message();
    if (c->split("tile_k")[1] == 1) return *c;
  }
  TESSEL_UNREACHABLE() << "tile_k has no unit inner factor";
}

WinogradLayout MakeWinogradLayout(const nn::Conv2dAttrs& a, const WinogradKnobs& k,
                                  const target::TargetFacts& facts) {
  WinogradLayout l;
  l.block = Block(facts);
  l.ic_padded = RoundUp(a.ic, l.block);
  l.oc_padded = RoundUp(a.oc, l.block);
  l.tiles_padded = RoundUp(nn::WinogradGeometry{a, k.m}.tiles(), k.tile_p);
  return l;
}

WinogradConv MakeWinogradConv(const nn::Conv2dAttrs& a, const WinogradKnobs& k,
                              const target::TargetFacts& facts) {
  WinogradConv c;
  c.geo = nn::WinogradGeometry{a, k.m};
  absl::StatusOr<nn::WinogradMatrices> mats = nn::Winograd3x3(k.m);
  TESSEL_CHECK(mats.ok()) << mats.status().message();
  c.mats = *mats;
  c.layout = MakeWinogradLayout(a, k, facts);
  const WinogradLayout& l = c.layout;
  auto dim = [](int64_t v) { return ir::IntImm(ir::kInt32, v); };
  const int alpha = c.geo.alpha();
  c.data = te::placeholder({dim(a.n), dim(l.ic_padded / l.block), dim(a.h), dim(a.w), dim(l.block)},
                           ir::kFloat32, "data");
  c.weight = te::placeholder(
      {dim(alpha), dim(alpha), dim(l.oc_padded / k.tile_oc), dim(l.ic_padded), dim(k.tile_oc)},
      ir::kFloat32, "winograd_weight");
  c.padded = nn::WinogradPadInput(c.data, c.geo);
  c.v = nn::WinogradDataTransform(c.padded, c.mats, c.geo, l.tiles_padded);
  c.m = nn::WinogradBatchedGemm(c.v, c.weight);
  c.out = nn::WinogradInverseTransform(c.m, c.mats, c.geo, l.block);
  c.stored = c.out;
  return c;
}

std::vector<ir::Expr> WinogradToLogical(const std::vector<ir::Expr>& tiled,
                                        const nn::WinogradGeometry& geo, int64_t block) {
  TESSEL_CHECK(tiled.size() == 7) << "a tiled Winograd index has 7 entries, got " << tiled.size();
  const nn::Conv2dAttrs& a = geo.conv;
  auto dim = [](int64_t v) { return ir::IntImm(ir::kInt32, v); };
  // i, kept below extent when the whole tiles or blocks (padded) go past it.
  auto clamp = [&](ir::Expr i, int64_t extent, int64_t padded) {
    return padded > extent ? ir::min(std::move(i), dim(extent - 1)) : i;
  };
  return {tiled[0], clamp(tiled[1] * dim(block) + tiled[6], a.oc, RoundUp(a.oc, block)),
          clamp(tiled[2] * dim(geo.m) + tiled[3], a.oh(), geo.tiles_h() * geo.m),
          clamp(tiled[4] * dim(geo.m) + tiled[5], a.ow(), geo.tiles_w() * geo.m)};
}

absl::Status ScheduleWinogradStage(schedule::Schedule& s, const WinogradConv& c,
                                   WinogradStage stage, const WinogradKnobs& k,
                                   const target::TargetFacts& facts) {
  switch (stage) {
    case WinogradStage::kData:
      if (k.pad_inline || PadIsCopy(c.geo)) {
        TESSEL_RETURN_IF_ERROR(s[c.padded].compute_inline());
      } else {
        TESSEL_RETURN_IF_ERROR(SchedulePad(s, c, facts));
      }
      return ScheduleDataTransform(s, c, k, facts);
    case WinogradStage::kGemm:
      return ScheduleGemm(s, c, k, facts);
    case WinogradStage::kInverse:
      return ScheduleInverse(s, c, k, facts);
  }
  TESSEL_UNREACHABLE() << "unknown Winograd stage";
}

absl::Status ScheduleConv2dWinograd(schedule::Schedule& s, const WinogradConv& c,
                                    const WinogradKnobs& k, const target::TargetFacts& facts) {
  for (WinogradStage stage :
       {WinogradStage::kData, WinogradStage::kGemm, WinogradStage::kInverse}) {
    TESSEL_RETURN_IF_ERROR(ScheduleWinogradStage(s, c, stage, k, facts));
  }
  return absl::OkStatus();
}

}  // namespace tessel::ops::x86
