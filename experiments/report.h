#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/config.h"
#include "experiments/stats.h"

// The files an experiment leaves in its output directory, as text: trials.csv, summary.csv and
// summary.md (experiments/README.md describes each column). Writing them is the runner's job.
namespace tessel::experiments {

// oneDNN's time for one workload, measured once per experiment.
struct BaselineTime {
  double seconds = 0;           // median of the repeats
  std::vector<double> repeats;  // seconds per run, one per timed repeat
  std::string implementation;   // oneDNN's kernel name
  std::string measured_at;      // UTC date and time
};

struct WorkloadReport {
  std::string name;
  std::string template_name;
  double flops = 0;  // of one run of the operator (a multiply-add counts 2)
  std::optional<BaselineTime> baseline;
};

// One tuning run: a workload tuned by a strategy with a seed; trials in measuring order.
struct RunReport {
  std::string workload;
  std::string strategy;
  uint64_t seed = 0;
  std::vector<Trial> trials;
  bool finished = false;          // false while the run is still to come or was interrupted
  std::optional<RunTimes> times;  // where its wall time went, when recorded
};

struct ReportInput {
  const ExperimentConfig* config = nullptr;
  // Lines "key: value" describing the machine, the target and threads, and the build.
  std::string machine;
  std::string date;                       // when the report was written, UTC
  std::vector<WorkloadReport> workloads;  // in the config's order
  std::vector<RunReport> runs;            // workload, then strategy, then seed, config order
  // workload name -> PNG file name (relative to the output directory), several per workload in
  // the order shown; workloads without one are reported without a figure.
  std::vector<std::pair<std::string, std::string>> plots;
};

// Columns workload,strategy,seed,trial,config_index,error,gflops,best_gflops,best_speedup;
// gflops is empty for a failed trial, best_gflops and best_speedup are 0 until a trial succeeds
// and best_speedup is empty without a baseline.
std::string TrialsCsv(const ReportInput& input);

// Columns strategy,seed,trials_to_baseline,trials_to_90pct_of_final,final_speedup,
// trials_to_90pct_of_best (90% of the best speed any run of the workload reached), then
// best_gflops_at_<N> for each of Checkpoints(config trials), preceded by workload when the config
// has more than one; one row per run with at least one trial. Empty cells: never reached, no
// baseline, or fewer than N trials.
std::string SummaryCsv(const ReportInput& input);

// The report people read: machine and date, the baseline per workload, per workload a figure and
// a table with the median over seeds of each strategy's numbers, then the config as written.
std::string SummaryMarkdown(const ReportInput& input);

// The per-strategy medians of summary.md as a plain-text table, for the terminal.
std::string SummaryTable(const ReportInput& input);

}  // namespace tessel::experiments
