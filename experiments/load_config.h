#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <variant>

#include "experiments/config.h"
#include "experiments/models_config.h"

// An experiment config of either kind, told apart by its `kind:` key: `tuning` (the default;
// config.h) tunes operator workloads, `models` (models_config.h) compares compiled networks.
namespace tessel::experiments {

using AnyConfig = std::variant<ExperimentConfig, ModelsConfig>;

// Errors: those of the kind's parser, and "<path>:<line>: kind: unknown experiment kind ...".
absl::StatusOr<AnyConfig> ParseAnyConfig(const std::string& text, const std::string& path,
                                         const KnownNames& known);

// Reads and parses the file; NotFound naming the path when it cannot be read.
absl::StatusOr<AnyConfig> LoadAnyConfig(const std::string& path, const KnownNames& known);

}  // namespace tessel::experiments
