#pragma once

#include <memory>

#include "search/explorers/explorer.h"

// `grid` (black-box): the valid points in index order 0, 1, 2, ..., each proposed at most once
// over the explorer's life; points in `visited` are skipped (and not proposed later either). With
// knob 0 varying fastest (ConfigSpace's numbering), the walk sweeps knob 0 first. It takes no
// parameters: any key in params is an error.
namespace tessel::search {

std::unique_ptr<Explorer> MakeGridExplorer(const ConfigSpace& space);

}  // namespace tessel::search
