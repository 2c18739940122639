#pragma once

#include <absl/status/statusor.h>

#include "compiler/schedule/iter_index.h"

namespace tessel::schedule {

// Bound inference: the range of every iteration variable of every stage that is not inline and
// not a placeholder.
// - An output stage covers its whole shape.
// - Any other stage covers the region its consumers read: for each read of its outputs in a
//   consumer's (inlined) body, the index expressions are evaluated as interval sets while the
//   loops that enclose the stage's realization are held fixed (they stay symbolic, so a stage
//   computed at a consumer's loop gets a region that moves with that loop) and every other loop
//   ranges over its extent. Loops bound to thread indices are relaxed too where the stage's
//   storage is shared among those threads: "global" relaxes blockIdx and threadIdx, "shared"
//   relaxes threadIdx, "local" relaxes none. The union over reads is clipped to the tensor's shape
//   where it may exceed it.
// - A region whose extent varies with the fixed loops is widened to its largest extent, so every
//   realization has the same size; lowering guards the computation to the tensor's shape.
// - Split, fused and reduction loops follow from the roots (iter_index.h PassDownDomain).
absl::StatusOr<BoundMap> InferBound(const Schedule& schedule);

}  // namespace tessel::schedule
