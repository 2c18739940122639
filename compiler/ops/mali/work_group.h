#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/template_util.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// What the Mali templates (key "mali": conv2d_spatial_pack, depthwise_conv2d, dense) share: the
// binding of an output's axes to work-groups, the work-group knobs, and the checks of their
// arguments' target. Mali-class GPUs (Mali-T860: 256 work-items per group, 32 KiB of local memory,
// 64 registers per work-item, no warps) keep each work-item's block of outputs in registers, as
// float4 vectors, and use no local memory.
namespace tessel::ops::mali {

// The power-of-two extents a work-group knob offers: 1, 2, 4, ..., 64.
std::vector<int64_t> WorkGroupExtents();

// Declares a knob `name` over WorkGroupExtents(), filtered to at most the power of two at or
// above `blocks` (the blocks of outputs along that axis: more work-items would only idle).
void DefineWorkGroupKnob(search::ConfigSpace& space, const std::string& name, int64_t blocks);

// The largest power of two at most v (v >= 1), and the smallest at least v.
int64_t FloorPow2(int64_t v);
int64_t CeilPow2(int64_t v);
int64_t CeilDiv(int64_t a, int64_t b);

// The loops of BindWorkGroups: for each axis, its work-groups and its work-items.
struct WorkGroupLoops {
  std::vector<ir::IterVar> groups, items;
};

// Splits each of up to three axes (outermost first) by its work-group extent and binds the
// groups to blockIdx.z, .y, .x and the work-items to threadIdx.z, .y, .x (the last axis on x),
// groups outside items; the stage's other loops stay inside, in their order.
absl::StatusOr<WorkGroupLoops> BindWorkGroups(schedule::Stage stage,
                                              const std::vector<ir::IterVar>& axes,
                                              const std::vector<int64_t>& extents);

// The accumulators one work-item may keep in registers: half its registers.
int64_t AccumulatorCap(const target::GpuFacts& gpu);

}  // namespace tessel::ops::mali
