#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/schedule/schedule.h"

// What the multi-level tiling templates share (conv2d_multilevel.x86, dense_multilevel.x86,
// batch_matmul_multilevel.x86): spaces in which the whole tiling decision is a knob, so good
// configs are rare (issue #21). Their filters keep what no tuner should pay to measure out of
// the space: accumulators past a stack-sized buffer (the code generator would allocate them on
// the heap in every tile) and unrolled bodies so large that only the compile time grows.
namespace tessel::ops::x86 {

inline constexpr int64_t kMaxAccumulatorBytes = 64 * 1024;
inline constexpr int64_t kMaxUnrolledCopies = 512;

// Splits `v` into parts.size() nested loops of those sizes (outermost first; the outermost is
// what the others leave), returned outermost first.
absl::StatusOr<std::vector<ir::IterVar>> SplitLevels(schedule::Stage& stage, ir::IterVar v,
                                                     const std::vector<int64_t>& parts);

// The product of the first `depth` extents (innermost loops first): the copies of the loop body
// that unrolling those loops makes.
int64_t UnrolledCopies(const std::vector<int64_t>& innermost_first, int depth);

// Fuses the first `count` loops after `first` into it and marks the result parallel; returns it.
absl::StatusOr<ir::IterVar> FuseParallel(schedule::Stage& stage,
                                         const std::vector<ir::IterVar>& order, int count);

}  // namespace tessel::ops::x86
