#pragma once

#include "compiler/schedule/schedule.h"
#include "compiler/testing/workloads.h"

namespace tessel::testing {

// A 12-primitive CPU schedule of a conv2d: cache_write of the output into "local"; tile, split,
// reorder, fuse and parallelize the output; compute the cache at the output's tile; split,
// reorder, vectorize and unroll the cache; compute the padding at the cache's outer reduction.
// The lowering benchmark times it; schedule_test checks it computes the unscheduled result.
// Any refused primitive is an internal error (the schedule is valid for every conv2d workload
// whose output width is a multiple of 8 and filter count a multiple of 16).
schedule::Schedule TwelvePrimitiveConv2dSchedule(const Conv2d& w);

}  // namespace tessel::testing
