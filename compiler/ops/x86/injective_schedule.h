#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ops/injective/injective_op.h"
#include "compiler/ops/template.h"
#include "compiler/schedule/schedule.h"
#include "search/space/config_space.h"

// The x86 schedule of injective outputs (each element computed from inputs by index arithmetic
// alone: element-wise and data-movement operators), shared by every such template.
//
// An output of rank r is scheduled with its last k axes fused into one inner loop:
//   fused axes [0, p)                parallel (the rows): the leading outer axes, as many as
//                                    give 256 rows (or all r - k of them)
//     axes [p, r - k)                serial, each its own loop (no division to index them)
//     inner / (vec * unroll)         serial, guarded when vec * unroll does not divide inner
//       unroll                       unrolled
//         vec                        vectorized
// When the inner loop is not longer than one vector it is vectorized whole. When r == k (no
// rows), the tile loop itself runs in parallel (as up to 256 chunks of tiles when the last tile
// is ragged). Guarded tails are split off by loop partitioning, so the bulk stays vector code.
//
// Fusing several axes relies on the simplifier to turn the fused index's divisions back into an
// affine address, which it does not always do (when the tile is longer than the innermost axis,
// e.g. 7 x 7 planes): templates should present their tensors with mergeable axes already merged
// (a view through prepare/finish, free for a graph compiler), see CollapseBroadcast.
//
// Knobs: "inner_axes" k in 1..max_inner_axes, "vec" (elements per vector: half, one or two
// registers), "unroll" (vectors per tile: 1, 2, 4), "parallel" (0 or 1). A filter rejects a
// ragged tile over several fused axes: its guard tests each fused axis through a division, which
// loop partitioning cannot split off, so the whole inner loop would run scalar.
namespace tessel::ops::x86 {

struct InjectiveTiling {
  int inner_axes = 1;
  int64_t vec = 16;
  int64_t unroll = 1;
  bool parallel = true;
};

// Declares the knobs for an output of `shape`. max_inner_axes (>= 1, <= rank) is the most
// trailing axes whose fusion keeps every input's index arithmetic affine in the fused index
// (the template knows: all axes for same-shape element-wise ops, fewer when an input is
// broadcast or permuted along some of them).
void DefineInjectiveKnobs(search::ConfigSpace& space, const std::vector<int64_t>& shape,
                          int max_inner_axes, const target::TargetFacts& facts);

// The tiling a config of such a space names.
InjectiveTiling InjectiveTilingOf(const search::Config& config);

// The untuned choice: the (inner_axes, vec) with the least estimated time (vector
// instructions, scalar tail elements and a per-row overhead, over the threads the rows or tiles
// can occupy), unroll 2 for long inner loops that divide, parallel from 64Ki elements on.
InjectiveTiling DefaultInjectiveTiling(const std::vector<int64_t>& shape, int max_inner_axes,
                                       const target::TargetFacts& facts);

// The knobs' JSON values of a tiling, to merge into a fallback config's "knobs".
nlohmann::json InjectiveKnobs(const InjectiveTiling& tiling);

// Schedules the stage of `out` (a compute without reduction) as above. Errors name the stage.
absl::Status ScheduleInjective(schedule::Schedule& s, const te::Tensor& out,
                               const InjectiveTiling& tiling);

// The target-independent computes these templates schedule (ops/injective), under the names this
// folder's templates and tests use.
using injective::CollapseBroadcast;
using injective::CollapsedViews;
using injective::InjectiveBuilder;
using injective::InjectiveOp;
using injective::TailedInjectiveBuilder;

// The template: knobs as above, the fallback DefaultInjectiveTiling, the program the builder's
// output scheduled by ScheduleInjective. Flops: flops_per_element per output element. With
// `with_tail` (the element-wise operators), instantiate_with_tail builds the program with it.
Template MakeInjectiveTemplate(std::string name, std::string op, std::string summary,
                               InjectiveBuilder build, TailedInjectiveBuilder with_tail = nullptr);

}  // namespace tessel::ops::x86
