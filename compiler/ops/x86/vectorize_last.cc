#include "compiler/ops/x86/vectorize_last.h"

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::x86 {

absl::StatusOr<ir::IterVar> VectorizeLast(schedule::Schedule& s, const te::Tensor& t,
                                          int64_t extent, int64_t vec) {
  schedule::Stage st = s[t];
  const ir::IterVar& last = nn::Axes(t).back();
  if (extent <= vec) {
    TESSEL_RETURN_IF_ERROR(st.vectorize(last));
    return last;
  }
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult parts,
                          st.split(last, ir::IntImm(ir::kInt32, vec)));
  TESSEL_RETURN_IF_ERROR(st.vectorize(parts.inner));
  return parts.outer;
}

}  // namespace tessel::ops::x86
