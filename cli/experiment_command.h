#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel experiment CONFIG.yaml [--out DIR]`: runs the experiment the config describes
// (experiments/README.md; either kind: tuning operator workloads, runner.h, or comparing compiled
// models, models_runner.h) and writes its results to DIR (default results/<name>/<cpu>/, <cpu>
// the CPU the target resolves to). CONFIG may also name a shipped config (`quickstart`,
// `fig12_costmodels`, `tuned_table2`, `fig4_fusion`, `fig14_end2end`). The live progress goes to
// stderr (rewritten in place on a terminal); the summary table and where the results are go to
// `out`. Rerunning the same command resumes.
namespace tessel::cli {

absl::Status ExperimentCommand(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
