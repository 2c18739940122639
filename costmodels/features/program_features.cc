#include "costmodels/features/program_features.h"

#include "compiler/support/status_macros.h"
#include "compiler/transforms/pipeline.h"
#include "costmodels/features/curve.h"
#include "costmodels/features/itervar.h"
#include "costmodels/features/loop_nest.h"
#include "costmodels/features/touch.h"

namespace tessel::costmodels {

ProgramFeatures ExtractProgramFeatures(const ir::PrimFunc& func) {
  const LoopNest nest = AnalyzeLoopNest(func);
  const TouchTable touches = ComputeTouches(nest);
  ProgramFeatures features;
  features.itervar = ItervarRows(nest, touches);
  features.parents.reserve(nest.loops.size());
  for (const Loop& loop : nest.loops) features.parents.push_back(loop.parent);
  features.curve = CurveFeatures(nest, touches);
  return features;
}

absl::StatusOr<ProgramFeatures> ExtractProgramFeatures(const schedule::Schedule& schedule,
                                                       const std::vector<te::Tensor>& args) {
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func,
                          transforms::LowerToLoopNest(schedule, args, "features"));
  return ExtractProgramFeatures(func);
}

}  // namespace tessel::costmodels
