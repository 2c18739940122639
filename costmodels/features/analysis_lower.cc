#include "costmodels/features/analysis_lower.h"

#include <absl/strings/str_cat.h>

#include "compiler/schedule/bound.h"
#include "compiler/schedule/schedule_ops.h"
#include "compiler/support/status_macros.h"

namespace tessel::costmodels {

absl::StatusOr<ir::PrimFunc> AnalysisLower(const schedule::Schedule& schedule,
                                           const std::vector<te::Tensor>& args,
                                           const std::string& name) {
  TESSEL_ASSIGN_OR_RETURN(schedule::BoundMap bounds, schedule::InferBound(schedule));
  // The arguments' buffers as transforms::Lower declares them (shape variables are not
  // parameters here: the function is never called).
  schedule::TensorBuffers buffers;
  std::vector<ir::Var> params;
  std::vector<ir::Buffer> param_buffers;
  for (const te::Tensor& t : args) {
    if (buffers.count(t)) {
      return absl::InvalidArgumentError(
          absl::StrCat("lowering ", name, ": tensor ", t.name(), " is given twice"));
    }
    ir::Buffer b = ir::Buffer::Declare(t.name(), t.shape(), t.dtype());
    buffers.emplace(t, b);
    // cache_write replaces a stage's operation; the argument names the one the user declared.
    auto stage = schedule->stage_of.find(t.op().get());
    if (stage != schedule->stage_of.end() && !stage->second->op.same_as(t.op())) {
      buffers.emplace(stage->second->op.output(t.value_index()), b);
    }
    params.push_back(b->data);
    param_buffers.push_back(b);
  }
  TESSEL_ASSIGN_OR_RETURN(ir::Stmt nest, schedule::ScheduleOps(schedule, bounds, buffers));
  return ir::PrimFunc(name, params, param_buffers, nest);
}

}  // namespace tessel::costmodels
