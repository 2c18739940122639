#pragma once

#include <absl/status/statusor.h>

#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/schedule/schedule.h"

// The itervar rows (itervar.h) and curve features (curve.h) of one program.
namespace tessel::costmodels {

struct ProgramFeatures {
  std::vector<std::vector<float>> itervar;  // one row per loop, in program order
  std::vector<int> parents;                 // per loop: the loop it is directly nested in, or -1
  std::vector<float> curve;                 // kCurveWidth values
};

// Of a function as LowerToLoopNest returns it.
ProgramFeatures ExtractProgramFeatures(const ir::PrimFunc& func);

// Of a schedule: transforms::LowerToLoopNest(schedule, args), then the above. Errors are
// lowering's.
absl::StatusOr<ProgramFeatures> ExtractProgramFeatures(const schedule::Schedule& schedule,
                                                       const std::vector<te::Tensor>& args);

}  // namespace tessel::costmodels
