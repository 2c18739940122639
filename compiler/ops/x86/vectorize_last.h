#pragma once

#include <absl/status/statusor.h>

#include <cstdint>

#include "compiler/schedule/schedule.h"

namespace tessel::ops::x86 {

// Vectorizes the last data axis of stage t (of `extent` elements): whole when it is at most
// `vec`, else split by vec (a ragged last vector is guarded and split off by loop partitioning).
// Returns the loop outside the vector, for a reduction to move its axis before.
absl::StatusOr<ir::IterVar> VectorizeLast(schedule::Schedule& s, const te::Tensor& t,
                                          int64_t extent, int64_t vec);

}  // namespace tessel::ops::x86
