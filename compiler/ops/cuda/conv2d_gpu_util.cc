#include "compiler/ops/cuda/conv2d_gpu_util.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::cuda {
namespace {

ir::Expr Int(int64_t v) { return nn::Dim(v); }

}  // namespace

int64_t LargestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

absl::StatusOr<TiledAxis> SplitFour(schedule::Stage& stage, const ir::IterVar& axis,
                                    const std::array<int64_t, 4>& parts) {
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult inner, stage.split(axis, Int(parts[3])));
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult thread,
                          stage.split(inner.outer, Int(parts[2])));
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult vthread,
                          stage.split(thread.outer, Int(parts[1])));
  return TiledAxis{vthread.outer, vthread.inner, thread.inner, inner.inner};
}

absl::Status CooperativeFetch(schedule::Stage stage, int64_t tz, int64_t ty, int64_t tx) {
  const std::vector<ir::IterVar> axes = stage->leaf_iter_vars;
  ir::IterVar fused = axes[0];
  for (size_t i = 1; i < axes.size(); ++i) {
    TESSEL_ASSIGN_OR_RETURN(fused, stage.fuse(fused, axes[i]));
  }
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult x, stage.split(fused, Int(tx)));
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult y, stage.split(x.outer, Int(ty)));
  if (tz > 0) {
    TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult z, stage.split(y.outer, Int(tz)));
    TESSEL_RETURN_IF_ERROR(stage.bind(z.inner, "threadIdx.z"));
  }
  TESSEL_RETURN_IF_ERROR(stage.bind(y.inner, "threadIdx.y"));
  return stage.bind(x.inner, "threadIdx.x");
}

}  // namespace tessel::ops::cuda
