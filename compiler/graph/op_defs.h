#pragma once

#include <vector>

#include "compiler/graph/op_registry.h"

// The definitions behind op_registry.h, one per operator of compiler/ops/OPERATORS.md.
namespace tessel::graph {

std::vector<OpDef> AllOpDefs();

}  // namespace tessel::graph
