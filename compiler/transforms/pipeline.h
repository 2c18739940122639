#pragma once

#include <absl/status/statusor.h>

#include <ostream>
#include <string>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/schedule/schedule.h"

namespace tessel::transforms {

struct LowerOptions {
#ifdef NDEBUG
  static constexpr bool kDebugBuild = false;
#else
  static constexpr bool kDebugBuild = true;
#endif
  // Run ir::VerifyWellFormed after every pass; a pass that breaks it is an internal error.
  bool verify_each_pass = kDebugBuild;
  // When set, the IR after every pass that changed it is printed here, headed by the pass name.
  std::ostream* dump = nullptr;
  // When set, each pass's wall time is printed here (microseconds).
  std::ostream* timing = nullptr;
  // Serial loops with a constant extent up to this are unrolled too (0: only unroll() loops).
  int auto_unroll_max_extent = 0;
};

// The lowering pipeline, the one place its order is written:
//   bound inference -> schedule to loop nest -> storage_flatten -> simplify -> loop_partition
//   -> vectorize
//   -> inject_virtual_thread -> inject_double_buffer -> storage_rewrite -> unroll -> thread_sync
//   -> lower_intrinsics -> simplify
// The function's parameters are the data of each tensor in `args`, in order, followed by every
// variable of the arguments' shapes (as int32 scalars, in order of appearance). Errors (a
// schedule lowering cannot honour: a tensorize that does not match, a vectorized loop whose
// extent is not constant, ...) name the stage and axis.
absl::StatusOr<ir::PrimFunc> Lower(const schedule::Schedule& schedule,
                                   const std::vector<te::Tensor>& args, const std::string& name,
                                   const LowerOptions& options = {});

// The loop nest the schedule describes, before any pass of Lower: bound inference and schedule to
// loop nest only (what AutoTVM calls analysis lowering), for analyses of a schedule rather than
// code. Every loop the schedule makes is still a For with the kind its annotation gave it
// (vectorized and unrolled loops are not yet vector code or copies; loops of extent 1 are kept);
// intermediate buffers are BufferRealize regions with multi-dimensional, unsimplified accesses.
// The parameters are the buffers of `args`, declared as Lower declares them (shape variables are
// not parameters: the function is analysed, never called). About a quarter of Lower's time.
absl::StatusOr<ir::PrimFunc> LowerToLoopNest(const schedule::Schedule& schedule,
                                             const std::vector<te::Tensor>& args,
                                             const std::string& name);

}  // namespace tessel::transforms
