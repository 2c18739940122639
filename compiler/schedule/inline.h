#pragma once

#include <unordered_map>
#include <vector>

#include "compiler/schedule/schedule.h"

namespace tessel::schedule {

// The output expressions each stage computes once every stage marked compute_inline is
// substituted into the expressions that read it (recursively): a read T(e0, ..., en) of an inline
// stage's output becomes that stage's body with its axes replaced by e0..en. Keyed by stage; inline
// stages and placeholders have no entry.
using StageBodies = std::unordered_map<const StageNode*, std::vector<Expr>>;
StageBodies InlinedBodies(const Schedule& schedule);

}  // namespace tessel::schedule
