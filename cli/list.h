#pragma once

#include <string>

namespace tessel::cli {

// The text of `tessel list`: every registry (targets, operators and templates, cost models,
// explorers, workloads) with what is registered in it.
std::string RegistryListing();

}  // namespace tessel::cli
