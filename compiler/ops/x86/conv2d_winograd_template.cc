// conv2d_winograd.x86: 3x3 stride-1 conv2d by Winograd F(2x2, 3x3) or F(4x4, 3x3) with the
// kernel transform done once before the program runs ("pre-transformed" weights, what a graph
// compiler constant-folds), scheduled as conv2d_winograd_schedule.h says.
//
// The program takes data in NCHW{lanes}c (channels zero-padded) and the transformed weight
// U[alpha][alpha][oc / tile_oc][ic][tile_oc], and gives the output in whole m x m tiles,
// NCHW{lanes}c; prepare packs the data and transforms the weight on the host (in double),
// finish crops the tiles' overhang and the padded channels back to NCHW. When the tiles cover the
// output exactly and the block divides the channels, that output is NCHW{lanes}c itself, which a
// graph may keep (channel_blocks). A fused tail
// (instantiate_with_tail) sits in the inverse transform's stage, which writes the output: it
// applies to each transformed value before the store, channel block vectorized, at the logical
// index WinogradToLogical gives (clamped in the overhang, whose values finish drops).
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/winograd.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/conv2d_nchwc_schedule.h"
#include "compiler/ops/x86/conv2d_winograd_schedule.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::x86 {
namespace {

constexpr char kName[] = "conv2d_winograd.x86";
constexpr DLDataType kF32{kDLFloat, 32, 1};

// conv2d's arguments, restricted to what Winograd F(m x m, 3 x 3) computes.
absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  ArgReader r(kName, args);
  if (a.kh != 3) return r.Error(absl::StrCat("'kh' must be 3 for Winograd 3x3, got ", a.kh));
  if (a.kw != 3) return r.Error(absl::StrCat("'kw' must be 3 for Winograd 3x3, got ", a.kw));
  if (a.stride[0] != 1 || a.stride[1] != 1) {
    return r.Error(absl::StrCat("'stride' must be [1, 1] for Winograd, got [", a.stride[0], ", ",
                                a.stride[1], "]"));
  }
  if (a.dilation[0] != 1 || a.dilation[1] != 1) {
    return r.Error(absl::StrCat("'dilation' must be [1, 1] for Winograd, got [", a.dilation[0],
                                ", ", a.dilation[1], "]"));
  }
  if (a.groups != 1) {
    return r.Error(absl::StrCat("'groups' must be 1 for Winograd, got ", a.groups));
  }
  return a;
}

// NCHW [n, c, h, w] -> [n, c_padded / block, h, w, block], zero channels from c on.
runtime::NDArray PackData(const runtime::NDArray& x, int64_t block, int64_t c_padded) {
  const int64_t n = x.shape()[0], c = x.shape()[1], hw = x.shape()[2] * x.shape()[3];
  runtime::NDArray out =
      runtime::NDArray::Empty({n, c_padded / block, x.shape()[2], x.shape()[3], block}, kF32);
  float* dst = out.data<float>();
  const float* src = x.data<float>();
  std::fill(dst, dst + out.NumElements(), 0.0f);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      float* d = dst + ((b * (c_padded / block) + ch / block) * hw) * block + ch % block;
      const float* s = src + (b * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) d[i * block] = s[i];
    }
  }
  return out;
}

// Whole tiles [n, oc_padded / block, th, m, tw, m, block] -> NCHW [n, oc, oh, ow].
runtime::NDArray UnpackOutput(const runtime::NDArray& y, const nn::Conv2dAttrs& a) {
  const std::vector<int64_t>& s = y.shape();
  const int64_t blocks = s[1], rows = s[2] * s[3], cols = s[4] * s[5], block = s[6];
  runtime::NDArray out = runtime::NDArray::Empty({a.n, a.oc, a.oh(), a.ow()}, kF32);
  float* dst = out.data<float>();
  const float* src = y.data<float>();
  for (int64_t b = 0; b < a.n; ++b) {
    for (int64_t o = 0; o < a.oc; ++o) {
      const float* plane = src + (b * blocks + o / block) * rows * cols * block + o % block;
      float* d = dst + (b * a.oc + o) * a.oh() * a.ow();
      for (int64_t i = 0; i < a.oh(); ++i) {
        for (int64_t j = 0; j < a.ow(); ++j) d[i * a.ow() + j] = plane[(i * cols + j) * block];
      }
    }
  }
  return out;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  search::ConfigSpace space;
  DefineConv2dWinogradSpace(space, a, facts);
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  return Conv2dWinogradFallback(space, *ReadAttrs(args), facts);
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const target::TargetFacts& facts,
                                              const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  const WinogradKnobs k = ReadWinogradKnobs(config);
  WinogradConv c = MakeWinogradConv(a, k, facts);
  if (tail != nullptr) {
    const nn::WinogradGeometry geo = c.geo;
    const int64_t block = c.layout.block;
    const ir::Expr m = nn::Dim(k.m);
    c.stored = ApplyTail(
        c.out, *tail,
        [&geo, block](const std::vector<ir::Expr>& i) { return WinogradToLogical(i, geo, block); },
        // Whole tiles covering the output exactly (channel_blocks' blocked output):
        // [n, oc / block, th, vh, tw, vw, block] is [n, oc / block, th * m + vh, tw * m + vw,
        // block].
        [m](const std::vector<ir::Expr>& i) -> std::vector<ir::Expr> {
          return {i[0], i[1], i[2] * m + i[3], i[4] * m + i[5], i[6]};
        });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({c.stored.op()});
  TESSEL_RETURN_IF_ERROR(ScheduleConv2dWinograd(p.schedule, c, k, facts));
  p.args = {c.data, c.weight, c.stored};
  p.flops = a.flops();  // the direct convolution's, so GFLOPS compare with direct schedules
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.oc, a.ic, 3, 3}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  const WinogradLayout l = c.layout;
  const nn::WinogradMatrices mats = c.mats;
  const int64_t panel = k.tile_oc;
  p.prepare = [a, l, mats, panel](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    const int64_t alpha = mats.alpha();
    runtime::NDArray u =
        runtime::NDArray::Empty({alpha, alpha, l.oc_padded / panel, l.ic_padded, panel}, kF32);
    nn::WinogradWeightTransformHost(in[1].data<float>(), a.oc, a.ic, mats, l.oc_padded, l.ic_padded,
                                    panel, u.data<float>());
    return std::vector<runtime::NDArray>{PackData(in[0], l.block, l.ic_padded), u};
  };
  p.finish = [a](const std::vector<runtime::NDArray>& out)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{UnpackOutput(out[0], a)};
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template Make() {
  return Template{
      kName, "conv2d", "3x3 stride-1 conv2d by Winograd F(2x2|4x4, 3x3), weights pre-transformed",
      Space, Fallback,
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts& facts) {
        return InstantiateWithTail(config, args, facts, nullptr);
      },
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts& facts,
         const OutputTail& tail) { return InstantiateWithTail(config, args, facts, &tail); },
      // The output is whole m x m tiles, [n, oc / block, oh / m, m, ow / m, m, block]: NCHW{block}c
      // itself when the tiles cover oh and ow exactly (cropped by finish otherwise).
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts& facts) {
        const nn::Conv2dAttrs a = *ReadAttrs(args);
        const WinogradKnobs k = ReadWinogradKnobs(config);
        const WinogradLayout l = MakeWinogradLayout(a, k, facts);
        const bool whole_tiles = a.oh() % k.m == 0 && a.ow() % k.m == 0;
        return ExactBlocks(a.ic, a.oc, l.block, whole_tiles ? l.block : 0);
      }};
}

TESSEL_REGISTER_TEMPLATE("cpu", Make());

}  // namespace
}  // namespace tessel::ops::x86
