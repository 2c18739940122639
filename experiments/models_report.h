#pragma once

#include <string>
#include <vector>

#include "experiments/compare_models.h"
#include "experiments/models_config.h"

// The files a models experiment (models_runner.h) leaves in its output directory, as text:
// summary.csv, times.csv and summary.md (experiments/README.md describes each column). Writing
// them is the runner's job.
namespace tessel::experiments {

// What tuning did for one network (a models config with `tuning:`).
struct NetworkTuning {
  std::string network;
  std::string log;  // relative to the output directory
  int tasks = 0;
  int trials = 0;  // measured configs in the log for these tasks, resumed ones included
};

struct ModelsReportInput {
  const ModelsConfig* config = nullptr;
  // Lines "key: value" describing the machine, the target and threads, and the build.
  std::string machine;
  std::string date;                      // when the report was written, UTC
  std::vector<ModelComparison> results;  // the networks timed so far, in the config's order
  std::vector<NetworkTuning> tuning;     // empty without `tuning:`
  std::string plot;                      // the bar chart's file name; "" when there is none
};

// Columns network,variant,median_ms,min_ms,max_ms,speedup; one row per network x variant.
// speedup: PairedSpeedup over the network's first variant (the first variant's is 1).
std::string ModelsSummaryCsv(const ModelsReportInput& input);

// Columns network,variant,repeat,ms,runs_per_repeat; one row per timed repeat (repeat from 1;
// ms: the mean time of one run in that repeat).
std::string ModelsTimesCsv(const ModelsReportInput& input);

// The report people read: machine, date, how it was measured, the figure, one table of every
// network x variant, what the outputs were checked against, then the config as written.
std::string ModelsSummaryMarkdown(const ModelsReportInput& input);

// The medians and speedups as a plain-text table, for the terminal.
std::string ModelsSummaryTable(const ModelsReportInput& input);

// How a variant runs the network, in words ("Tessel, graph optimizations without fusion").
std::string DescribeVariant(const VariantSpec& v);

}  // namespace tessel::experiments
