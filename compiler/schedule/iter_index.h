#pragma once

#include <unordered_map>

#include "compiler/schedule/schedule.h"

namespace tessel::schedule {

using ir::Range;
using BoundMap = std::unordered_map<const ir::IterVarNode*, Range>;
using ValueMap = std::unordered_map<const ir::IterVarNode*, Expr>;

// The value of every iteration variable of a stage, given the values of its leaf loops: each
// leaf loop runs over [0, extent) and the values of split parents, fused parts and roots follow
// from the relations (parent = outer * factor + inner; outer = fused / extent(inner), inner =
// fused % extent(inner)); a root axis adds its range's min. `leaf_values` gives each leaf's value
// (normally its loop variable); `bounds` gives every iteration variable's range.
ValueMap RootValues(const StageNode& stage, const BoundMap& bounds, ValueMap leaf_values);

// The extent of a split's inner or outer loop, or of a fused loop, from its parent's; used by
// bound inference to give every derived loop its range.
void PassDownDomain(const StageNode& stage, BoundMap& bounds);

}  // namespace tessel::schedule
