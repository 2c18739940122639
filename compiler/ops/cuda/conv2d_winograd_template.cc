// conv2d_winograd.gpu: 3x3 stride-1 conv2d (groups 1, dilation 1) by Winograd F(m x m, 3 x 3)
// (nn/winograd.h) as one GPU kernel, with the kernel transform done before the program runs
// (prepare: the weight pre-transformed on the host, what a graph compiler constant-folds).
//
// The program takes data NCHW as it is and the transformed weight U[alpha][alpha][oc][ic][1]
// (panel 1 in nn::WinogradWeightTransform's terms: a block's channels are a slice of U),
// and gives the output in whole m x m tiles, [n, oc, tiles_h, m, tiles_w, m, 1] (the memory of
// NCHW [n, oc, tiles_h * m, tiles_w * m]); finish crops the tiles' overhang. Knobs:
//   tile_size             m in {2, 4}
//   tile_oc               3-way split of oc: [block, thread, inner]
//   tile_p                threads over the output tiles of one image, a power of two (the last
//                         block may be ragged: its extra threads compute a repeat of the last
//                         tile and store nothing)
//   tile_rc               2-way split of ic, the batched product's reduction: [outer, inner]
//   auto_unroll_max_step  {0, 512, 1500}, unroll_explicit {0, 1}: the Unroll pass's pragmas
// Loop nest: blockIdx.z = (n, oc block), blockIdx.x = tile block; threadIdx.y = oc thread,
// threadIdx.x = tile thread. Each thread accumulates the alpha x alpha transformed products of
// its tile and its inner channels in "local" memory over ic in steps of rc: per step, the
// block's threads first compute the data transform V = B^T d B of the block's tiles for rc
// channels into "shared" memory (one tile and channel per thread at a time, the padded input
// read through guards) and copy U's rc x (block's channels) slices there, then each thread
// multiplies and adds. Finally each thread applies the inverse transform A^T M A and stores its
// m x m outputs (the transform loops unrolled, so the matrices' constants fold). A fused tail
// (instantiate_with_tail) applies there, at the logical index (clamped in the overhang, whose
// values finish drops).
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/cuda/conv2d_gpu_util.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/winograd.h"
#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

using nn::Axes;
using nn::Dim;
using schedule::Stage;

constexpr char kName[] = "conv2d_winograd.gpu";
constexpr DLDataType kF32{kDLFloat, 32, 1};

// conv2d's arguments, restricted to what Winograd F(m x m, 3 x 3) computes.
absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  ArgReader r(kName, args);
  if (a.kh != 3 || a.kw != 3) {
    return r.Error(absl::StrCat("'kh' and 'kw' must be 3 for Winograd 3x3, got ", a.kh, "x", a.kw));
  }
  if (a.stride[0] != 1 || a.stride[1] != 1) {
    return r.Error(absl::StrCat("'stride' must be [1, 1] for Winograd, got [", a.stride[0], ", ",
                                a.stride[1], "]"));
  }
  if (a.dilation[0] != 1 || a.dilation[1] != 1) {
    return r.Error(absl::StrCat("'dilation' must be [1, 1] for Winograd, got [", a.dilation[0],
                                ", ", a.dilation[1], "]"));
  }
  if (a.groups != 1)
    return r.Error(absl::StrCat("'groups' must be 1 for Winograd, got ", a.groups));
  return a;
}

struct Knobs {
  int m = 4;
  std::array<int64_t, 3> oc{};  // [block, thread, inner]
  int64_t tile_p = 1;
  int64_t rc = 1;
  int64_t auto_unroll_max_step = 0;
  bool unroll_explicit = false;

  int64_t alpha() const { return m + 2; }
  int64_t threads() const { return oc[1] * tile_p; }
  // The transformed products a thread accumulates: alpha^2 per inner channel.
  int64_t accumulators() const { return alpha() * alpha() * oc[2]; }
};

Knobs ReadKnobs(const search::Config& config) {
  Knobs k;
  k.m = static_cast<int>(config.knob("tile_size"));
  const std::vector<int64_t>& oc = config.split("tile_oc");
  k.oc = {oc[0], oc[1], oc[2]};
  k.tile_p = config.knob("tile_p");
  k.rc = config.split("tile_rc")[1];
  k.auto_unroll_max_step = config.knob("auto_unroll_max_step");
  k.unroll_explicit = config.knob("unroll_explicit") != 0;
  return k;
}

// Output tiles of one image.
int64_t ImageTiles(const nn::Conv2dAttrs& a, int m) {
  const nn::WinogradGeometry geo{a, m};
  return geo.tiles_h() * geo.tiles_w();
}

// Shared bytes of a block: V for its tiles and U for its channels, rc input channels each.
int64_t SharedBytes(const Knobs& k) {
  return 4 * k.alpha() * k.alpha() * k.rc * (k.tile_p + k.oc[1] * k.oc[2]);
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(kName, facts));
  search::ConfigSpace space;
  space.define_knob("tile_size", {2, 4});
  space.define_split("tile_oc", a.oc, {.policy = search::SplitPolicy::kFactors, .num_outputs = 3});
  space.define_knob("tile_p", {1, 2, 4, 8, 16, 32, 64, 128, 256});
  space.define_split("tile_rc", a.ic, {.policy = search::SplitPolicy::kFactors, .num_outputs = 2});
  space.define_knob("auto_unroll_max_step", {0, 512, 1500});
  space.define_knob("unroll_explicit", {0, 1});
  const int64_t max_threads = gpu.max_threads_per_block;
  space.AddFilter("threads_per_block", [max_threads](const search::Config& c) {
    return ReadKnobs(c).threads() <= max_threads;
  });
  // No more tile threads than the next power of two of an image's tiles (the rest would idle).
  space.AddFilter("tile_p_within_tiles", [a](const search::Config& c) {
    const Knobs k = ReadKnobs(c);
    return k.tile_p == 1 || k.tile_p / 2 < ImageTiles(a, k.m);
  });
  const int64_t max_shared = gpu.shared_memory_per_block;
  space.AddFilter("shared_memory", [max_shared](const search::Config& c) {
    return SharedBytes(ReadKnobs(c)) <= max_shared;
  });
  space.AddFilter("outputs_per_thread", [](const search::Config& c) {
    return ReadKnobs(c).accumulators() <= kMaxOutputsPerThread;
  });
  return space;
}

// F(4x4) where the rows divide into 8 (fewer multiplies per output; 36 accumulators, one
// channel per thread), else F(2x2) with 2 channels per thread; the tiles of an image over up to
// 64 threads (a power of two), channels over the rest of about 256 threads (the device's limit
// if lower); rc in steps of up to 8, shrunk until the shared tiles fit; unrolled up to 512
// steps, expanded.
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Conv2dAttrs a = *ReadAttrs(args);
  const target::GpuFacts gpu = *RequireGpu(kName, facts);
  const int64_t max_threads = std::min<int64_t>(256, gpu.max_threads_per_block);
  Knobs k;
  k.m = a.oh() % 8 == 0 ? 4 : 2;
  const int64_t tiles = ImageTiles(a, k.m);
  k.tile_p = 1;
  while (k.tile_p < std::min<int64_t>(tiles, 64)) k.tile_p *= 2;
  const int64_t oc_thread =
      LargestDivisorAtMost(a.oc, std::max<int64_t>(1, max_threads / k.tile_p));
  const int64_t oc_inner = k.m == 4 ? 1 : LargestDivisorAtMost(a.oc / oc_thread, 2);
  k.oc = {a.oc / (oc_thread * oc_inner), oc_thread, oc_inner};
  k.rc = LargestDivisorAtMost(a.ic, 8);
  while (k.rc > 1 && SharedBytes(k) > gpu.shared_memory_per_block) {
    k.rc = LargestDivisorAtMost(a.ic, k.rc - 1);
  }
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs",
                                                           {{"tile_size", k.m},
                                                            {"tile_oc", k.oc},
                                                            {"tile_p", k.tile_p},
                                                            {"tile_rc", {a.ic / k.rc, k.rc}},
                                                            {"auto_unroll_max_step", 512},
                                                            {"unroll_explicit", 1}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// The tensors of one program.
struct WinogradGpu {
  nn::WinogradGeometry geo;
  nn::WinogradMatrices mats;
  te::Tensor data;    // [n, ic, h, w]
  te::Tensor weight;  // U: [alpha, alpha, oc, ic, 1]
  te::Tensor padded, v, gemm, out;
};

WinogradGpu MakeWinogradGpu(const nn::Conv2dAttrs& a, const Knobs& k) {
  WinogradGpu w;
  w.geo = nn::WinogradGeometry{a, k.m};
  w.mats = *nn::Winograd3x3(k.m);
  const int64_t alpha = k.alpha();
  w.data = te::placeholder({Dim(a.n), Dim(a.ic), Dim(a.h), Dim(a.w)}, ir::kFloat32, "data");
  w.weight = te::placeholder({Dim(alpha), Dim(alpha), Dim(a.oc), Dim(a.ic), Dim(1)}, ir::kFloat32,
                             "weight");
  // The zero-padded input in nn::WinogradDataTransform's blocked form, block 1.
  const int64_t top = a.pad[0], left = a.pad[1];
  w.padded = te::compute(
      {Dim(a.n), Dim(a.ic), Dim(w.geo.padded_h()), Dim(w.geo.padded_w()), Dim(1)},
      [&](ir::Var n, ir::Var c, ir::Var y, ir::Var x, ir::Var) {
        ir::Expr iy = y - Dim(top), ix = x - Dim(left);
        return ir::if_then_else(iy >= Dim(0) && iy < Dim(a.h) && ix >= Dim(0) && ix < Dim(a.w),
                                w.data(n, c, iy, ix), ir::FloatImm(ir::kFloat32, 0.0));
      },
      "winograd_pad", {"n", "c", "y", "x", "ci"});
  // A ragged last tile block reads up to tile_p - 1 tiles past the last (repeats of it).
  w.v = nn::WinogradDataTransform(w.padded, w.mats, w.geo, w.geo.tiles() + k.tile_p - 1);
  w.gemm = nn::WinogradBatchedGemm(w.v, w.weight);
  w.out = nn::WinogradInverseTransform(w.gemm, w.mats, w.geo, 1);
  return w;
}

// The logical NCHW index of a tiled output index (n, o, th, vh, tw, vw, 0), kept inside the
// output in the overhang.
std::vector<ir::Expr> TiledToLogical(const std::vector<ir::Expr>& i,
                                     const nn::WinogradGeometry& geo) {
  auto clamp = [](ir::Expr e, int64_t extent, int64_t covered) {
    return covered > extent ? ir::min(std::move(e), Dim(extent - 1)) : e;
  };
  return {i[0], i[1], clamp(i[2] * Dim(geo.m) + i[3], geo.conv.oh(), geo.tiles_h() * geo.m),
          clamp(i[4] * Dim(geo.m) + i[5], geo.conv.ow(), geo.tiles_w() * geo.m)};
}

absl::Status Apply(schedule::Schedule& s, const WinogradGpu& w, const te::Tensor& stored,
                   const Knobs& k) {
  if (!stored.op().same_as(w.out.op())) TESSEL_RETURN_IF_ERROR(s[w.out].compute_inline());
  // The padding inline: a thread reads a tile's window once per transformed element. (Staging
  // the window in registers does not work out: attached outside the copy's thread indices, its
  // region covers every thread's tiles, as bound inference covers the loops below the attach
  // point; attached inside them, the lowered code uses the copy's thread loop variables, which
  // an attached stage's thread-bound loops do not define.)
  TESSEL_RETURN_IF_ERROR(s[w.padded].compute_inline());
  TESSEL_RETURN_IF_ERROR(s[w.gemm].set_scope("local"));
  TESSEL_RETURN_IF_ERROR(s[w.v].set_scope("shared"));
  TESSEL_ASSIGN_OR_RETURN(te::Tensor u_shared, s.cache_read(w.weight, "shared", {w.gemm.op()}));

  Stage o = s[stored];
  const auto& oa = Axes(stored);  // n, oc, th, vh, tw, vw, c (extent 1)
  TESSEL_RETURN_IF_ERROR(o.reorder({oa[0], oa[1], oa[2], oa[4], oa[3], oa[5], oa[6]}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar tiles, o.fuse(oa[2], oa[4]));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult t, o.split(tiles, Dim(k.tile_p)));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult oc_inner, o.split(oa[1], Dim(k.oc[2])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult oc, o.split(oc_inner.outer, Dim(k.oc[1])));
  TESSEL_RETURN_IF_ERROR(o.reorder(
      {oa[0], oc.outer, t.outer, oc.inner, t.inner, oc_inner.inner, oa[3], oa[5], oa[6]}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar bz, o.fuse(oa[0], oc.outer));
  TESSEL_RETURN_IF_ERROR(o.bind(bz, "blockIdx.z"));
  TESSEL_RETURN_IF_ERROR(o.bind(t.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(o.bind(oc.inner, "threadIdx.y"));
  TESSEL_RETURN_IF_ERROR(o.bind(t.inner, "threadIdx.x"));
  for (const ir::IterVar& axis : {oa[3], oa[5], oa[6]}) TESSEL_RETURN_IF_ERROR(o.unroll(axis));
  TESSEL_RETURN_IF_ERROR(o.pragma(bz, "auto_unroll_max_step", Dim(k.auto_unroll_max_step)));
  TESSEL_RETURN_IF_ERROR(o.pragma(bz, "unroll_explicit", Dim(k.unroll_explicit ? 1 : 0)));

  Stage g = s[w.gemm];
  TESSEL_RETURN_IF_ERROR(g.compute_at(o, t.inner));
  const te::ComputeOpNode* gemm = w.gemm.op().as<te::ComputeOpNode>();
  const auto& ga = gemm->axis;  // eps, nu, p, o
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult rc, g.split(gemm->reduce_axis[0], Dim(k.rc)));
  TESSEL_RETURN_IF_ERROR(g.reorder({rc.outer, rc.inner, ga[2], ga[3], ga[0], ga[1]}));

  // One tile and channel per thread at a time, its alpha x alpha transform unrolled.
  Stage v = s[w.v];
  TESSEL_RETURN_IF_ERROR(v.compute_at(g, rc.outer));
  const auto& va = Axes(w.v);  // eps, nu, p, c
  TESSEL_RETURN_IF_ERROR(v.reorder({va[3], va[2], va[0], va[1]}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar vt, v.fuse(va[3], va[2]));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult vx, v.split(vt, Dim(k.tile_p)));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult vy, v.split(vx.outer, Dim(k.oc[1])));
  TESSEL_RETURN_IF_ERROR(v.bind(vy.inner, "threadIdx.y"));
  TESSEL_RETURN_IF_ERROR(v.bind(vx.inner, "threadIdx.x"));
  TESSEL_RETURN_IF_ERROR(v.unroll(va[0]));
  TESSEL_RETURN_IF_ERROR(v.unroll(va[1]));

  TESSEL_RETURN_IF_ERROR(s[u_shared].compute_at(g, rc.outer));
  return CooperativeFetch(s[u_shared], 0, k.oc[1], k.tile_p);
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  const Knobs k = ReadKnobs(config);
  WinogradGpu w = MakeWinogradGpu(a, k);
  te::Tensor stored = w.out;
  if (tail != nullptr) {
    const nn::WinogradGeometry geo = w.geo;
    stored = ApplyTail(w.out, *tail,
                       [geo](const std::vector<ir::Expr>& i) { return TiledToLogical(i, geo); });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(Apply(p.schedule, w, stored, k));
  p.args = {w.data, w.weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.oc, a.ic, 3, 3}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  const nn::WinogradMatrices mats = w.mats;
  const int64_t alpha = k.alpha();
  p.prepare = [a, mats, alpha](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    runtime::NDArray u = runtime::NDArray::Empty({alpha, alpha, a.oc, a.ic, 1}, kF32);
    nn::WinogradWeightTransformHost(in[1].data<float>(), a.oc, a.ic, mats, a.oc, a.ic, 1,
                                    u.data<float>());
    std::vector<runtime::NDArray> out = in;
    out[1] = u;
    return out;
  };
  const int64_t rows = w.geo.tiles_h() * k.m, cols = w.geo.tiles_w() * k.m;
  p.finish = [a, rows, cols](const std::vector<runtime::NDArray>& out)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    const int64_t oh = a.oh(), ow = a.ow();
    runtime::NDArray y = runtime::NDArray::Empty({a.n, a.oc, oh, ow}, kF32);
    const float* src = out[0].data<float>();
    float* dst = y.data<float>();
    for (int64_t plane = 0; plane < a.n * a.oc; ++plane) {
      for (int64_t r = 0; r < oh; ++r) {
        std::copy_n(src + (plane * rows + r) * cols, ow, dst + (plane * oh + r) * ow);
      }
    }
    return std::vector<runtime::NDArray>{y};
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template Make() {
  return Template{
      kName,
      "conv2d",
      "3x3 stride-1 conv2d by Winograd F(2x2 or 4x4, 3x3) in one GPU kernel: transformed input "
      "tiles in shared memory, pre-transformed weights",
      Space,
      Fallback,
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return InstantiateWithTail(config, args, nullptr);
      },
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
         const OutputTail& tail) { return InstantiateWithTail(config, args, &tail); }};
}

TESSEL_REGISTER_TEMPLATE("gpu", Make());

}  // namespace
}  // namespace tessel::ops::cuda
