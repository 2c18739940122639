#include "compiler/ops/x86/multilevel_tiling.h"

#include <functional>
#include <numeric>

#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::x86 {

absl::StatusOr<std::vector<ir::IterVar>> SplitLevels(schedule::Stage& stage, ir::IterVar v,
                                                     const std::vector<int64_t>& parts) {
  std::vector<ir::IterVar> loops;
  for (size_t i = 1; i < parts.size(); ++i) {
    const int64_t inner =
        std::accumulate(parts.begin() + i, parts.end(), int64_t{1}, std::multiplies<>());
    TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult s,
                            stage.split(v, static_cast<int>(inner)));
    loops.push_back(s.outer);
    v = s.inner;
  }
  loops.push_back(v);
  return loops;
}

int64_t UnrolledCopies(const std::vector<int64_t>& innermost_first, int depth) {
  TESSEL_CHECK(depth >= 0 && depth <= static_cast<int>(innermost_first.size()))
      << "unroll depth " << depth << " of " << innermost_first.size() << " loops";
  int64_t copies = 1;
  for (int i = 0; i < depth; ++i) copies *= innermost_first[i];
  return copies;
}

absl::StatusOr<ir::IterVar> FuseParallel(schedule::Stage& stage,
                                         const std::vector<ir::IterVar>& order, int count) {
  TESSEL_CHECK(count >= 0 && count < static_cast<int>(order.size()))
      << "fusing " << count << " loops after the first of " << order.size();
  ir::IterVar fused = order[0];
  for (int i = 1; i <= count; ++i) {
    TESSEL_ASSIGN_OR_RETURN(fused, stage.fuse(fused, order[i]));
  }
  TESSEL_RETURN_IF_ERROR(stage.parallel(fused));
  return fused;
}

}  // namespace tessel::ops::x86
