#pragma once

#include <cstdint>
#include <optional>

#include "compiler/schedule/schedule.h"

namespace tessel::schedule {

// The extent of one of a stage's loops as far as it follows from the declared domains and the
// split factors alone, when that is a constant: a root axis' constant extent; a split's inner
// loop, its constant factor (or ceil(parent / nparts)); its outer loop, ceil(parent / factor) (or
// nparts); a fused loop, the product. Bound inference (bound.h) gives the final extents; this is
// what primitives can check before it.
std::optional<int64_t> StaticExtent(const StageNode& stage, const IterVar& axis);

}  // namespace tessel::schedule
