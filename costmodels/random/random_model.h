#pragma once

#include <absl/status/statusor.h>

#include <memory>

#include "costmodels/cost_model.h"

// The `random` cost model: the baseline that knows nothing. Fit records nothing; Predict scores
// each config uniformly in [0, 1), from a generator seeded with CostModelOptions::seed that
// advances with every score, so the same seed and the same calls give the same scores. It needs
// no feature extractor. Save writes {"model": "random", "version": 1, "seed", "draws"}; Load
// resumes the sequence where the saved model stood.
namespace tessel::costmodels {

std::unique_ptr<CostModel> MakeRandomModel(const CostModelOptions& options);

}  // namespace tessel::costmodels
