#pragma once

#include <absl/status/statusor.h>

#include <ostream>
#include <string>
#include <vector>

#include "experiments/config.h"

// Runs an experiment: every workload x strategy x seed of a config is tuned (search/tuner) with
// its own log, <out>/logs/<workload>/<strategy>_seed<k>.jsonl, and the results are written to
// <out>: trials.csv, summary.csv, summary.md, baseline.json and one PNG per workload
// (experiments/README.md).
//
// Resuming: running the same config again continues each run from its log (never measuring a
// config twice) and skips the finished ones; oneDNN's time is reused from baseline.json when it
// was measured for the same arguments, threads, target and machine. Outputs are rewritten after
// each run, each atomically, so an interrupted experiment leaves complete files.
namespace tessel::experiments {

struct RunnerOptions {
  std::string out_dir;               // "": results/<config name> (relative to the working dir)
  std::ostream* progress = nullptr;  // the live progress line and notes; null: quiet
  bool progress_in_place = false;    // rewrite the line with \r (a terminal)
  std::string worker_path;           // "": search::DefaultWorkerPath()
  bool plot = true;                  // run experiments/plot.py at the end
  std::string plot_script;           // "": FindPlotScript()
  std::string python = "/usr/bin/python3";
};

struct ExperimentOutcome {
  std::string out_dir;
  int runs = 0;                       // workloads x strategies x seeds
  int tuned = 0;                      // runs this call tuned (the others were finished before)
  std::vector<std::string> files;     // what was written, relative to out_dir
  std::vector<std::string> warnings;  // e.g. no figures because matplotlib is missing
  std::string table;                  // the summary's medians as plain text
};

// Errors: the config names something this machine cannot run (a target, a template that rejects
// a workload, an explorer without the cost model it needs: "<config>:<line>: <key>: ..."), the
// output directory or a log cannot be written, measuring cannot start (no worker). A candidate
// that fails is a record in the log, never an error.
absl::StatusOr<ExperimentOutcome> RunExperiment(const ExperimentConfig& config,
                                                const RunnerOptions& options);

}  // namespace tessel::experiments
