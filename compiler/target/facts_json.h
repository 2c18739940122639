#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>

#include "compiler/target/target_facts.h"

// TargetFacts as JSON, for the files and messages that carry them (saved models, measurement
// requests): {"target": "<target string>", "vector_bits": 256, "vector_registers": 16,
// "cores": 2, "l1_bytes": ..., "l2_bytes": ..., "gpu": {...}, "vdla": {...}}; "gpu" and "vdla"
// only when the facts have them, with the fields of GpuFacts and VdlaConfig by name.
namespace tessel::target {

nlohmann::json FactsToJson(const TargetFacts& facts);

// Reads FactsToJson's form. "vector_registers" may be missing (files written before it was
// saved): 16 then. Errors name the field under `where` ("facts.cores: expected an integer") or
// the target that does not parse.
absl::StatusOr<TargetFacts> FactsFromJson(const nlohmann::json& json,
                                          const std::string& where = "facts");

}  // namespace tessel::target
