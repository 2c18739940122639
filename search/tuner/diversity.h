#pragma once

#include <cstddef>
#include <vector>

#include "search/space/config_space.h"

// Diversity-aware selection (PAPER.md §2): from candidates ranked by a cost model, pick k that are
// both good and different, so one batch does not spend every trial on near-copies of one point.
namespace tessel::search {

// Greedy maximisation of  sum of scores + weight * (number of distinct (knob, value) pairs
// covered), a submodular objective, so greedy is within (1 - 1/e) of the best set. Candidates and
// scores are parallel; the result keeps the order of picking (best marginal gain first). Returns
// all candidates when k >= their number. `weight` trades score (normalised to [0, 1] over the
// candidates) against coverage; 0 gives the top k by score.
std::vector<Config> DiversePick(const std::vector<Config>& candidates,
                                const std::vector<double>& scores, size_t k, double weight);

}  // namespace tessel::search
