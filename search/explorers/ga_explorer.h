#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "search/explorers/explorer.h"

// `ga` (black-box): a genetic algorithm on the knob vector (PAPER.md §2 "Genetic algorithm", after
// AutoTVM's GATuner).
//
// A generation is pop_size distinct valid points, none visited or created before by this explorer;
// the first is drawn at random. Propose(n) hands out the current generation's individuals in order,
// skipping any that `visited` holds by then, and breeds the next generation when the current one
// is used up (also in the middle of a call). Breeding uses the fitness given to Observe:
//   - the parent pool is the current generation's individuals with an observed fitness plus the
//     elites (the elite_num fittest of the previous pool, kept without being measured again); when
//     none has been observed yet, every individual and elite, with equal weight;
//   - parents are drawn in proportion to fitness (normalised by the pool's best, plus 1e-8 so that
//     an all-zero pool is drawn uniformly), two distinct ones per child when the pool allows;
//   - a child takes knobs [0, c) from the first parent and [c, num_knobs) from the second, with the
//     cut c uniform in [1, num_knobs) (a copy of the first parent when there is one knob);
//   - each knob then mutates with probability mutation_prob to another value, uniformly;
//   - a child that is invalid, visited or created before has random knobs redrawn, a bounded number
//     of times, then new parents are drawn; a slot that still has no child gets a random unvisited
//     valid point.
// A generation that comes out empty means the space has no unvisited valid point left: Propose
// then returns what it has.
namespace tessel::search {

// The params keys are the field names.
struct GaParams {
  int pop_size = 100;          // individuals per generation (>= 1)
  int elite_num = 3;           // fittest kept as parents for the next generation (0..pop_size)
  double mutation_prob = 0.1;  // per knob, per child ([0, 1])
};

// The defaults overridden by the keys present; errors name the key.
absl::StatusOr<GaParams> ParseGaParams(const nlohmann::json& params);

std::unique_ptr<Explorer> MakeGaExplorer(const ConfigSpace& space, const GaParams& params,
                                         uint64_t seed);

}  // namespace tessel::search
