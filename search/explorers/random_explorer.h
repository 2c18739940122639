#pragma once

#include <cstdint>
#include <memory>

#include "search/explorers/explorer.h"

// `random` (black-box): valid points drawn uniformly without replacement over the explorer's life.
// Propose(n) returns n points neither in `visited` nor proposed before by this explorer (fewer
// once the space runs out; see ConfigSpace::SampleUnique for the bound on tries in huge, mostly
// filtered spaces). It takes no parameters: any key in params is an error.
namespace tessel::search {

std::unique_ptr<Explorer> MakeRandomExplorer(const ConfigSpace& space, uint64_t seed);

}  // namespace tessel::search
