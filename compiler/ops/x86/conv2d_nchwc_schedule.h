#pragma once

#include <absl/status/status.h>

#include <cstdint>
#include <vector>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/template.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// The x86 schedule of a blocked (NCHW[x]c) convolution, shared by conv2d_nchwc.x86 and
// conv2d_transpose_nchwc.x86. Knobs, as AutoTVM's x86 conv2d_NCHWc, in declaration order:
//   tile_ic    split of ic: [ic / icb, icb], icb the innermost reduction block (data layout)
//   tile_oc    split of oc: [oc / ocb, ocb], ocb vectorized (weight and output layout)
//   tile_ow    split of the output width: [ow / reg_n, reg_n], reg_n unrolled
//   unroll_kw  1: unroll the kernel-width loop
//   pad_at_tile  1: compute the padded input window of each register tile right before it (in
//              L1; windows overlap by the kernel's halo); 0: pad the whole input first
//   tile_oh    split of the output height: [oh / reg_h, reg_h], reg_h unrolled. The register
//              tile is reg_h x reg_n x ocb: reg_h * reg_n * ceil(ocb / lanes) accumulator vectors
//              stay in registers across the whole reduction (when they fit), and each weight
//              vector load feeds reg_h * reg_n FMAs. Filtered to reg_h * reg_n <= 32 (the tile's
//              statements are unrolled: beyond that the code only grows).
//   reorder_reduce  the order of the reduction loops (icc, kh, kw, icb) around the register tile,
//              one of kReduceOrders below; value 0 is icc, kh, kw, icb
//   oc_inner   0: output channel blocks outside output rows (a block's weights stay in cache
//              across its rows); 1: rows outside channel blocks (a row band's input stays in
//              cache across the channel blocks)
// The last three were added after the first five, so a point with all three at value 0 keeps
// the index it had before (ConfigSpace numbers knob 0 fastest) and schedules the same program.
// Loop nest: parallel over (n, oc / ocb, oh / reg_h) (oc_inner: n, oh / reg_h, oc / ocb); then
// ow / reg_n; then the reduction loops in reorder_reduce's order; then reg_h and reg_n (unrolled)
// and ocb (vectorized). The padded input is a separate stage, parallel over its rows, or computed
// per tile (pad_at_tile).
namespace tessel::ops::x86 {

struct Conv2dNchwcKnobs {
  int64_t icb = 1, ocb = 1, reg_n = 1, reg_h = 1;
  bool unroll_kw = false;
  bool pad_at_tile = false;
  bool oc_inner = false;
  // A permutation of the reduction axes {0: icc, 1: kh, 2: kw, 3: icb}, outermost first.
  std::vector<int> reduce_order = {0, 1, 2, 3};
};

// Declares the knobs above for a convolution with attributes a (groups 1).
void DefineConv2dNchwcSpace(search::ConfigSpace& space, const nn::Conv2dAttrs& a);
// The untuned choice for this target (see the .cc for the reasoning).
search::Config Conv2dNchwcFallback(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                   const target::TargetFacts& facts);
Conv2dNchwcKnobs ReadConv2dNchwcKnobs(const search::Config& config);

// Schedules c (made with the knobs' icb and ocb) in s. `stored`: the tensor the program stores,
// c.out itself, or c.out with a fused tail (ApplyTail; c.out is then computed inline in it).
absl::Status ScheduleConv2dNchwc(schedule::Schedule& s, const nn::Conv2dNchwc& c,
                                 const Conv2dNchwcKnobs& knobs, const te::Tensor& stored);

// The padded input of c as a stage of its own: rows in parallel, channel blocks vectorized. Does
// nothing when c is unpadded.
absl::Status SchedulePaddedInput(schedule::Schedule& s, const nn::Conv2dNchwc& c);

// The tensor a conv2d NCHW[x]c program stores: c.out, or c.out with `tail` applied when given.
te::Tensor StoredConv2dNchwc(const nn::Conv2dNchwc& c, int64_t ocb, const OutputTail* tail);

// The program of a conv2d (groups 1) in NCHW[x]c, scheduled in s and storing `stored`
// (StoredConv2dNchwc): its arguments, flops and logical shapes, prepare packing data in blocks of
// icb and the weight in icb x ocb, finish unpacking the output, and the tail's inputs when given.
OpProgram Conv2dNchwcProgram(schedule::Schedule s, const nn::Conv2dAttrs& a,
                             const nn::Conv2dNchwc& c, int64_t icb, int64_t ocb,
                             const te::Tensor& stored, const OutputTail* tail);

// The logical (NCHW) index of an element [n, oc / ocb, oh, ow, ocb] of a blocked output.
std::vector<ir::Expr> NchwcToLogical(const std::vector<ir::Expr>& blocked, int64_t block);

// Template::channel_blocks of a program packing ic input channels in blocks of in_block and oc
// output channels in blocks of out_block: a side whose block pads channels (or is 0) is 0.
ChannelBlocks ExactBlocks(int64_t ic, int64_t oc, int64_t in_block, int64_t out_block);

// The largest divisor of n that is at most limit (1 at least).
int64_t LargestDivisorAtMost(int64_t n, int64_t limit);

}  // namespace tessel::ops::x86
