#pragma once

#include <absl/status/statusor.h>

#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/schedule/iter_index.h"
#include "compiler/schedule/schedule_ops.h"

namespace tessel::schedule {

// What lowering knows when a stage's loop is marked tensorize.
struct TensorizeRequest {
  const StageNode& stage;
  const te::ComputeOpNode& compute;
  IterVar leaf;  // the tensorized loop: it and the loops inside it are replaced
  te::TensorIntrin intrin;
  const BoundMap& bounds;
  const ValueMap& roots;  // the root axes' values in terms of the leaf loop variables
  const TensorBuffers& buffers;
  const std::vector<Expr>& body;  // the stage's (inlined) output expressions
};

// The statements that replace the nest. body: the intrinsic computes the whole tile (and for a
// reduction, the whole reduction). init/update: a reduction whose reduction continues outside
// the tensorized loop: init resets the tile before the outer reduction loops, update accumulates.
struct TensorizedNest {
  ir::Stmt body;
  ir::Stmt init, update;
};

// Matches the nest from request.leaf inward against the intrinsic's computation. It matches when
// (1) every root axis varies inside the nest only through one loop with coefficient 1 (the axis
// itself, or the inner loop of a split), the axes that vary being, in order, the intrinsic's
// data axes and reduction axes with provably equal extents; (2) the stage's expression, with
// those axes replaced by the intrinsic's, equals the intrinsic's expression once each intrinsic
// input is mapped to a stage input at a fixed offset (the tile's corner), on the trailing
// dimensions; (3) for a reduction, the reducers agree; (4) no guard is needed inside the tile.
// The intrinsic's buffers are then bound to the tiles: their data to the stage buffers' data,
// their strides and element offsets to the tiles'. A mismatch is an error naming the stage, the
// axis and the intrinsic.
absl::StatusOr<TensorizedNest> Tensorize(const TensorizeRequest& request,
                                         arith::Analyzer& analyzer);

}  // namespace tessel::schedule
