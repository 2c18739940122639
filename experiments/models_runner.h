#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "experiments/models_config.h"
#include "experiments/runner.h"

// Runs a models experiment (models_config.h): with `tuning:`, every task of every network
// (driver::ExtractTasks, for each Tessel variant's options) is first tuned into
// <out>/logs/<network>.jsonl (search::TuneTasks); then each network's variants are compared
// (compare_models.h: outputs checked, then timed interleaved), the Tessel variants compiled with
// that network's log. Results go to <out>: summary.csv, times.csv, summary.md and the bar chart
// <name>.png (experiments/README.md).
//
// Resuming: rerunning continues the tuning from the logs (a task's records count toward its
// trials and are never measured again) and times every network again (timing takes seconds to
// minutes, tuning hours). Outputs are rewritten after each network, each atomically.
namespace tessel::experiments {

struct ModelsOutcome {
  std::string out_dir;
  int networks = 0;                   // timed
  std::vector<std::string> files;     // what was written, relative to out_dir
  std::vector<std::string> warnings;  // e.g. no figure because matplotlib is missing
  std::string table;                  // the summary as plain text
};

// Errors: a target this machine cannot run ("<config>: target: ..."), a tuning explorer without
// the cost model it needs or with one it cannot use ("<config>:<line>: tuning.cost_model: ..."),
// the output directory or a log that cannot be written, tuning that cannot measure, a variant
// that does not compile or whose outputs differ from the reference (naming network and variant).
absl::StatusOr<ModelsOutcome> RunModelsExperiment(const ModelsConfig& config,
                                                  const RunnerOptions& options);

}  // namespace tessel::experiments
