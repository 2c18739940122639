#pragma once

#include <absl/status/statusor.h>

#include <limits>
#include <string>
#include <vector>

#include "experiments/nightly/record.h"

// The nightly verdict: each figure of this run against the committed baseline, with a threshold
// made of the figure's measured spread, so that noise does not fail the build and a regression
// beyond the noise does.
//
// The noise of a figure is the standard deviation of its relative change new/old - 1, the sum of
// the variances of both sides:
//   - this run: the larger of the spread of its median from its own repeats (a noisy night) and
//     the figure's run-to-run spread (a run's value also moves from run to run with the machine's
//     state, which repeats within one run do not see);
//   - the baseline: the same for a baseline of one run; for a baseline merged from M runs
//     (BaselineFromRuns), the spread of a median of M runs.
// Spreads are robust (median absolute deviations, scaled to a standard deviation, relative to
// the median); the spread of a median of n values is 1.2533 / sqrt(n) times the values' spread.
// The run-to-run spread comes from the successive changes of the figure across the history
// (the runs of the same suite, cpu and threads; a step change in the history is one outlier,
// not noise), pooled with its family's so that a few runs do not give a figure a spread that is
// too small by chance; until the history has min_history runs, run_spread_prior stands in.
namespace tessel::experiments::nightly {

struct JudgeOptions {
  // A figure's threshold (relative change) is max(floor, k x its noise), at most cap.
  //
  // k = 3.5 rather than 3: the false alarms of a run add up over its figures. On runs drawn with
  // the noise of the project's machines (verdict_test.cc's NoisyRuns: 30 figures, 300 seeds of
  // 20 runs), an unchanged build fails 1.5% of runs at k = 3.5 and 6% at k = 3, so that 95% of
  // the seeds pass at least 19 of 20 runs at k = 3.5 and 69% at k = 3. A figure a third slower
  // is named alone in at least 19 of 20 runs for 91% of the seeds.
  double k = 3.5;
  double floor = 0.05;  // changes smaller than 5% are never flagged, whatever the noise
  double cap = 0.5;     // a figure that halves (or grows by half) is flagged, however noisy
  // The relative run-to-run spread assumed for a figure whose history has fewer than min_history
  // runs: ratios on the project's shared 2-core machines move by several percent between runs.
  double run_spread_prior = 0.04;
  int min_history = 3;
  int history_window = 30;  // the latest runs of the history that count
};

enum class FigureStatus {
  kUnchanged,  // moved less than its threshold
  kImproved,   // moved in its good direction by more than its threshold
  kRegressed,  // moved in its bad direction by more than its threshold: a failure
  kMissing,    // in the baseline, but not in this run or without a value: a failure
  kNew,        // in this run only: listed, never a failure
};

// "unchanged", "improved", "regressed", "missing", "new".
const char* FigureStatusName(FigureStatus status);

struct FigureVerdict {
  std::string name;
  std::string family;
  std::string unit;
  bool higher_is_better = true;
  double old_value = 0;  // the baseline's; NaN for a new figure
  double new_value = 0;  // this run's; NaN for a missing figure
  double change = 0;     // new / old - 1; NaN unless both values exist
  double noise = 0;      // the standard deviation of `change` from noise alone; NaN when unknown
  double threshold = 0;  // relative; NaN for a missing or new figure
  // The value measured again after `new_value` regressed (confirm.h), which then decided
  // `status`; NaN when the figure was not measured again.
  double rerun_value = std::numeric_limits<double>::quiet_NaN();
  FigureStatus status = FigureStatus::kUnchanged;
};

struct Verdict {
  std::vector<FigureVerdict> figures;  // the baseline's figures in its order, then new ones
  bool passed = true;                  // no figure regressed or missing
  std::string commit_range;            // "baseline.commit..current.commit"
  std::string baseline_date;
  int baseline_runs = 1;
  int history_runs = 0;  // the history records that counted (same suite, cpu and threads)
};

// Judges `current` against `baseline`, with `history` (oldest first; the current run may be in
// it already: a record with its date and commit is skipped) for the run-to-run spreads.
// FailedPrecondition when the baseline was recorded for another suite, cpu or thread count
// (every comparison would be meaningless); InvalidArgument when a baseline figure has no
// positive value to compare with.
absl::StatusOr<Verdict> Judge(const Record& current, const Record& baseline,
                              const std::vector<Record>& history, const JudgeOptions& options = {});

// One line per failure, e.g.
//   regression: network/resnet18 2.01x -> 1.62x (-19.4%, threshold 7.5%), commits abc123..def456
//   regression: table2/C6 3.33x -> 2.45x (-26.3%, threshold 19.8%; 2.51x measured again), ...
//   missing: gemm_1024 (baseline 1.31x) is not in this run, commits abc123..def456
std::vector<std::string> FailureLines(const Verdict& verdict);

// A value with its unit as people read it: "2.01x", "12.3 s", "41.5 trials/min".
std::string FormatValue(double value, const std::string& unit);

// A fraction as a percentage with one decimal, "+5.2%" with `sign`, "-" when not finite.
std::string FormatPercent(double fraction, bool sign);

// A baseline merged from several runs (oldest first) of one suite, cpu and thread count: the
// newest run's description (date, commit, machine, versions) and figures, each figure's value
// the median of its values in the runs that have it and its repeats those values (Record::runs).
// A median of M runs makes the baseline's own noise about 1.25 / sqrt(M) of one run's, which
// lowers every threshold: with one run on each side, a figure whose runs move by 3.5% cannot be
// judged more finely than about 17% (k = 3.5); against a median of 5 runs, about 14%.
// InvalidArgument for no runs or runs of different suites, cpus or thread counts.
absl::StatusOr<Record> BaselineFromRuns(const std::vector<Record>& runs);

}  // namespace tessel::experiments::nightly
