#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// The numbers an experiment reports about one tuning run (one workload x strategy x seed), from
// the mean cost of each trial in the order they were measured.
namespace tessel::experiments {

// One trial as the reports see it.
struct Trial {
  int64_t config_index = -1;
  std::string error = "none";  // ErrorKindName of the measurement
  double cost_seconds = 0;     // mean cost; +infinity for a failed trial
};

// The running best after each trial: best[t] is the lowest cost among trials 0..t (+infinity
// until one succeeds).
std::vector<double> RunningBest(const std::vector<Trial>& trials);

struct RunSummary {
  int trials = 0;
  // Trials (1-based count) until the best cost first reached the baseline's time (speedup >= 1);
  // empty when it never did or there is no baseline.
  std::optional<int> trials_to_baseline;
  // Trials until the best cost first came within 90% of the final best's speed (best cost <=
  // final best / 0.9); empty when no trial succeeded.
  std::optional<int> trials_to_90pct_of_final;
  // baseline seconds / final best cost; empty without a baseline or a successful trial.
  std::optional<double> final_speedup;
  double final_best_seconds = 0;  // +infinity when no trial succeeded
  // Share of all trials whose own speed is within 90% of the final best's: how much of the budget
  // went to good candidates (a guided search measures mostly good ones even where every strategy
  // finds the best early). 0 when no trial succeeded.
  double share_within_90pct = 0;
};

// baseline_seconds <= 0: no baseline.
RunSummary Summarize(const std::vector<Trial>& trials, double baseline_seconds);

// Trials (1-based count) until the running best first reached `fraction` of the speed of a
// program taking reference_seconds (reference_seconds / best >= fraction); empty if never.
std::optional<int> TrialsToReach(const std::vector<double>& running_best, double reference_seconds,
                                 double fraction);

// The running best after the first n trials; empty when the run has fewer than n trials or none
// of them succeeded.
std::optional<double> BestAfter(const std::vector<double>& running_best, int n);

// The trial counts at which the reports show the best so far: 100, 200, 400, ... up to `trials`.
std::vector<int> Checkpoints(int trials);

// Where a run's wall time went (the tuner's TuneTimes summed over the sessions that measured its
// trials): trials measured, and seconds planning (the explorer and the model's predictions),
// fitting the model and measuring (building and running).
struct RunTimes {
  int measured = 0;
  double plan = 0;
  double fit = 0;
  double measure = 0;

  double total() const { return plan + fit + measure; }
};

// The median of values where empty means "never": empties count as larger than any value, so the
// median is empty when more than half of them are (for an even count, the mean of the two middle
// values, empty if either is). Empty for no values.
std::optional<double> MedianOfOptional(const std::vector<std::optional<double>>& values);

}  // namespace tessel::experiments
