#pragma once

#include <absl/status/status.h>

#include <cstdint>
#include <vector>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/winograd.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// The x86 schedule of Winograd conv2d (nn/winograd.h) for 3x3 stride-1 layers, with the kernel
// transform done before the program runs (pre-transformed weights). The program is
//   pad (or inlined) -> data transform V -> batched product M = V x U -> inverse transform Y
// with data in NCHW{lanes}c (channels zero-padded to a multiple of the vector lanes), the
// transformed weight U[alpha][alpha][oc / tile_oc][ic][tile_oc] and the output in whole tiles,
// NCHW{lanes}c (nn::WinogradInverseTransform).
//
// Knobs, in declaration order:
//   tile_size          m in {2, 4}: F(m x m, 3 x 3)
//   tile_oc            split of the (padded) output channels; the inner part is the product's
//                      register tile columns, vectorized (a multiple of the lanes)
//   tile_p             register tile rows of the product (tiles, unrolled); the tile count is
//                      rounded up to a multiple of it (extra rows repeat the last tile)
//   tile_k             split of the (padded) input channels, the product's reduction; the inner
//                      part is unrolled
//   gemm_order         0: column panels outside row tiles (a panel of U stays in cache);
//                      1: row tiles outside panels (a row tile of V stays in cache)
//   transform_unroll   1: the alpha x alpha (and m x m) transform loops unrolled, so the matrix
//                      constants fold; 0: loops over if_then_else chains (slow, valid)
//   transform_order    0: transforms loop over tiles outside channel blocks; 1: inside
//   pad_inline         1: padding read through guards in the data transform; 0: its own stage
// Every stage vectorizes its channel block and runs its outer loops in parallel when the target
// has more than one core. Points whose register tile needs more than the vector registers hold
// are filtered out.
namespace tessel::ops::x86 {

struct WinogradKnobs {
  int m = 4;
  int64_t tile_oc = 32;
  int64_t tile_p = 8;
  int64_t unroll_k = 1;
  int gemm_order = 0;
  bool transform_unroll = true;
  int transform_order = 0;
  bool pad_inline = false;
};

// Sizes a program uses for given knobs.
struct WinogradLayout {
  int64_t block = 16;      // channel block of data and output: the vector lanes
  int64_t ic_padded = 16;  // ic rounded up to block
  int64_t oc_padded = 16;  // oc rounded up to block
  int64_t tiles_padded = 1;
};

// The tensors of one program.
struct WinogradConv {
  nn::WinogradGeometry geo;
  nn::WinogradMatrices mats;
  WinogradLayout layout;
  te::Tensor data;    // input: [n, ic_padded / block, h, w, block]
  te::Tensor weight;  // input: [alpha, alpha, oc_padded / tile_oc, ic_padded, tile_oc]
  te::Tensor padded, v, m, out;
  // What the program stores: out, or out with a fused tail (ApplyTail with WinogradToLogical;
  // out is then computed inline in it and the tail stage takes the inverse transform's loops).
  te::Tensor stored;
};

// Declares the knobs for conv2d attributes a (already checked: 3x3, stride 1, groups 1).
void DefineConv2dWinogradSpace(search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                               const target::TargetFacts& facts);
WinogradKnobs ReadWinogradKnobs(const search::Config& config);
// The untuned choice for this machine.
search::Config Conv2dWinogradFallback(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                      const target::TargetFacts& facts);

WinogradLayout MakeWinogradLayout(const nn::Conv2dAttrs& a, const WinogradKnobs& k,
                                  const target::TargetFacts& facts);
// The computes for a and k (inputs as placeholders); stored is out.
WinogradConv MakeWinogradConv(const nn::Conv2dAttrs& a, const WinogradKnobs& k,
                              const target::TargetFacts& facts);
// Schedules every stage of c in s (a schedule of c.out).
absl::Status ScheduleConv2dWinograd(schedule::Schedule& s, const WinogradConv& c,
                                    const WinogradKnobs& k, const target::TargetFacts& facts);

// The logical (NCHW) index of an element [n, oc / block, th, vh, tw, vw, block] of the output
// in whole tiles. The tiles' overhang past oh, ow and the padded channels past oc (which finish
// crops) are clamped to the last logical row, column and channel, so that a tail reads in
// bounds there; each clamp is left out when nothing overhangs.
std::vector<ir::Expr> WinogradToLogical(const std::vector<ir::Expr>& tiled,
                                        const nn::WinogradGeometry& geo, int64_t block);

// One stage alone, as ScheduleConv2dWinograd schedules it (for timing the stages apart: s holds
// that stage, the ones before it as inputs or, for kData, with c.padded).
enum class WinogradStage { kData, kGemm, kInverse };
absl::Status ScheduleWinogradStage(schedule::Schedule& s, const WinogradConv& c,
                                   WinogradStage stage, const WinogradKnobs& k,
                                   const target::TargetFacts& facts);

}  // namespace tessel::ops::x86
