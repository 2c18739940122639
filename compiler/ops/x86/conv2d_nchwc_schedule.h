#pragma once

#include <absl/status/status.h>

#include <cstdint>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/target_facts.h"
#include "compiler/schedule/schedule.h"
#include "search/space/config_space.h"

// The x86 schedule of a blocked (NCHW[x]c) convolution, shared by conv2d_nchwc.x86 and
// conv2d_transpose_nchwc.x86. Knobs, as AutoTVM's x86 conv2d_NCHWc:
//   tile_ic    split of ic: [ic / icb, icb], icb the innermost reduction block (data layout)
//   tile_oc    split of oc: [oc / ocb, ocb], ocb vectorized (weight and output layout)
//   tile_ow    split of the output width: [ow / reg_n, reg_n], reg_n unrolled: reg_n x ocb
//              accumulators stay in vector registers across the whole reduction
//   unroll_kw  1: unroll the kernel-width loop
//   pad_at_tile  1: compute the padded input window of each register tile right before it (in
//              L1; windows overlap by the kernel's halo); 0: pad the whole input first
// Loop nest: parallel over (n, oc / ocb, oh); then ow / reg_n; then the reduction ic / icb, kh,
// kw, icb; then reg_n (unrolled) and ocb (vectorized). The padded input is a separate stage,
// parallel over its rows, or computed per tile (pad_at_tile).
namespace tessel::ops::x86 {

struct Conv2dNchwcKnobs {
  int64_t icb = 1, ocb = 1, reg_n = 1;
  bool unroll_kw = false;
  bool pad_at_tile = false;
};

// Declares the knobs above for a convolution with attributes a (groups 1).
void DefineConv2dNchwcSpace(search::ConfigSpace& space, const nn::Conv2dAttrs& a);
// The untuned choice for this target (see the .cc for the reasoning).
search::Config Conv2dNchwcFallback(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                   const TargetFacts& facts);
Conv2dNchwcKnobs ReadConv2dNchwcKnobs(const search::Config& config);

// Schedules c (made with the knobs' icb and ocb) in s.
absl::Status ScheduleConv2dNchwc(schedule::Schedule& s, const nn::Conv2dNchwc& c,
                                 const Conv2dNchwcKnobs& knobs);

// The largest divisor of n that is at most limit (1 at least).
int64_t LargestDivisorAtMost(int64_t n, int64_t limit);

}  // namespace tessel::ops::x86
