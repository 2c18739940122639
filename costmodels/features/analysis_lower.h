#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/schedule/schedule.h"

// The loop nest a schedule describes, lowered only as far as feature extraction needs (what
// AutoTVM calls "analysis lowering"): bound inference and schedule to loop nest, nothing else of
// transforms::Lower's pipeline, so
// - every loop the schedule has is still a For, with the kind its annotation gave it (vectorized
//   and unrolled loops are not yet vector code or copies; loops of extent 1 are kept), which
//   keeps the number of loops of a template's programs the same across most of its configs;
// - intermediate buffers are BufferRealize regions and accesses are multi-dimensional, indices
//   not simplified (the touch analysis, loop_nest.h, flattens them itself).
// It costs about a quarter of Lower (storage flattening alone would add a third to it), and the
// function is only analysed, never compiled. The parameters are args' buffers, declared as Lower
// declares them.
namespace tessel::costmodels {

absl::StatusOr<ir::PrimFunc> AnalysisLower(const schedule::Schedule& schedule,
                                           const std::vector<te::Tensor>& args,
                                           const std::string& name);

}  // namespace tessel::costmodels
