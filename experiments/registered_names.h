#pragma once

#include "experiments/config.h"

namespace tessel::experiments {

// The cost models, explorers and templates registered in this binary: what a config may name.
// Only the libraries linked in (alwayslink) have registered.
KnownNames RegisteredNames();

}  // namespace tessel::experiments
