#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ops/template.h"

// Reshapes on the host for a program's prepare/finish (OpProgram): a program may read a
// contiguous tensor under another shape of the same element count (a plane as one row, a tensor
// as [outer, axis, inner]), which costs a graph compiler nothing; here it is a copy, untimed.
namespace tessel::ops::injective {

// A HostTransform that gives array i the shape shapes[i] (same element count: a check).
HostTransform ReshapeArrays(std::vector<std::vector<int64_t>> shapes);

}  // namespace tessel::ops::injective
