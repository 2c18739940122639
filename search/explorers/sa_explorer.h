#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "search/explorers/explorer.h"

// `sa` (model-guided): parallel simulated annealing over a score function (PAPER.md §2
// "Simulated annealing", after AutoTVM's SimulatedAnnealingOptimizer).
//
// parallel_size chains walk the space; at each iteration every chain proposes ConfigSpace::
// Neighbour (one random knob changed), all proposals are scored in ONE ScoreFn call (so a cost
// model predicts in batches), and a chain moves when the new score is not lower, or else with
// probability exp(delta / (range * t)), where range is the spread (max - min) of the scores seen in
// this Propose call, which makes the temperature independent of the model's score scale and
// offset. The temperature t falls linearly from temperature_start at the first iteration towards
// temperature_end (at t <= 0 only moves that do not lower the score are taken). Every point a chain
// visits or proposes enters a list of the n best distinct points not in `visited`; the walk stops
// after n_iter iterations, or after early_stop iterations in which the list did not change.
// Propose returns the list best first (ties: lower index first), filled up with random unvisited
// valid points when the walk found fewer than n.
//
// The chains persist between Propose calls (rescored at the start of each call, as the model may
// have changed); the first call starts them at random valid points, unvisited ones first. Cost of
// one call: 1 + (iterations run) ScoreFn calls of parallel_size configs each, at most
// 1 + n_iter.
namespace tessel::search {

// The params keys are the field names.
struct SaParams {
  int parallel_size = 128;         // chains; configs per ScoreFn call (>= 1)
  int n_iter = 500;                // most iterations per Propose call (>= 0)
  int early_stop = 50;             // iterations without a change of the best list (>= 1)
  double temperature_start = 1.0;  // in units of the score range (>= 0)
  double temperature_end = 0.0;    // (>= 0)
};

// The defaults overridden by the keys present; errors name the key.
absl::StatusOr<SaParams> ParseSaParams(const nlohmann::json& params);

std::unique_ptr<Explorer> MakeSaExplorer(const ConfigSpace& space, const SaParams& params,
                                         uint64_t seed);

}  // namespace tessel::search
