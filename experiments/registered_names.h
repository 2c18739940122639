#pragma once

#include "experiments/config.h"

namespace tessel::experiments {

// The cost models, explorers and templates registered in this binary (only the libraries linked
// in, alwayslink, have registered), and the networks of workloads/networks with those that have a
// libtorch version: what a config may name.
KnownNames RegisteredNames();

}  // namespace tessel::experiments
