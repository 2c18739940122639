#pragma once

#include <absl/status/statusor.h>

#include <unordered_map>

#include "compiler/ir/stmt.h"
#include "compiler/schedule/iter_index.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"

namespace tessel::schedule {

using TensorBuffers = std::unordered_map<Tensor, ir::Buffer, te::TensorHash, te::TensorEqual>;

// Lowers a schedule, with the bounds InferBound gave it, to one statement:
// - each stage that is neither a placeholder nor inline becomes a loop nest over its leaf loops
//   (outermost first; each loop runs from 0 over its extent, with the kind its annotation says;
//   a loop bound to a thread index becomes a For of kind kThreadBinding, or, inside a loop already
//   bound to the same thread index, reuses that loop's variable with a guard);
// - its body stores each output at the root axes' values (iter_index.h), guarded by the
//   conditions that cannot be proved: a non-dividing split's overhang, and the tensor's shape;
// - a reduction initialises its outputs with the reducer's identity in the loops outside its
//   first reduction loop, then updates them in all loops;
// - a root stage's nest comes before the nests that read it; a compute_at stage's nest is placed
//   at the start of its consumer's loop; both are wrapped in a BufferRealize of the region bound
//   inference gave (plus a double_buffer_scope attribute when asked for);
// - reads of tensors become BufferLoads of the buffers given in `args` (placeholders and outputs)
//   or of the realized intermediates; inline stages are substituted.
// The result is multi-dimensional (storage flattening comes later). Errors name the stage and
// axis: a vectorized or unrolled loop whose extent is not constant, a compute_at target loop that
// is not emitted, a tensorize that does not match.
absl::StatusOr<ir::Stmt> ScheduleOps(const Schedule& schedule, const BoundMap& bounds,
                                     const TensorBuffers& args);

}  // namespace tessel::schedule
