#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <array>
#include <cstdint>
#include <string>

#include "compiler/ops/template_util.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/target_facts.h"

// Pieces the GPU convolution schedules share: tiling an axis over blocks, vthreads and threads,
// and the cooperative copy of a shared-memory tile.
namespace tessel::ops::cuda {

// Outputs a thread may accumulate (in registers) in a space's configs: more would spill.
inline constexpr int64_t kMaxOutputsPerThread = 64;

// The largest divisor of n that is at most limit (1 when limit < 1).
int64_t LargestDivisorAtMost(int64_t n, int64_t limit);

// An axis split into [block, vthread, thread, inner], outermost first.
struct TiledAxis {
  ir::IterVar block, vthread, thread, inner;
};

// Splits `axis` of `stage` by parts = [block, vthread, thread, inner] (a 4-way split value: the
// block part is implied by the others).
absl::StatusOr<TiledAxis> SplitFour(schedule::Stage& stage, const ir::IterVar& axis,
                                    const std::array<int64_t, 4>& parts);

// Spreads the copy into a shared tile over the block's tz x ty x tx threads: the stage's axes
// fused, consecutive elements on consecutive threadIdx.x (coalesced reads), then threadIdx.y,
// then threadIdx.z (none when tz is 0: a block without threadIdx.z), any rest a serial loop
// around them (a guard where the threads do not divide the tile).
absl::Status CooperativeFetch(schedule::Stage stage, int64_t tz, int64_t ty, int64_t tx);

}  // namespace tessel::ops::cuda
