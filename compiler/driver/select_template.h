#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>
#include <string>

#include "compiler/ops/target_facts.h"
#include "compiler/ops/template.h"

// Which x86 template computes a graph operator with given arguments: conv2d by the strategy of
// ops/x86/conv2d_strategy.h, every other operator by its one template. A fused group's kernel is
// its master's template (with a tail), so this choice also names the group's tuning task.
namespace tessel::driver {

// Errors: conv2d arguments the strategy cannot read (naming the key), an operator no template
// computes (Unimplemented, naming it).
absl::StatusOr<const ops::Template*> SelectTemplate(const std::string& op,
                                                    const nlohmann::json& args,
                                                    const ops::TargetFacts& facts);

}  // namespace tessel::driver
