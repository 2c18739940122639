#pragma once

#include <absl/status/status.h>

#include <functional>
#include <string>
#include <vector>

#include "experiments/nightly/record.h"
#include "experiments/nightly/verdict.h"

// Regressions confirmed by measuring again. On the project's shared 2-core machines a neighbour's
// burst can slow one side of a figure's round robin for minutes, and a figure then moves by a
// quarter with nothing changed (table2/C6 went from 3.33x to 2.45x in one of planted_test's
// unchanged runs). Thresholds wide enough for such bursts would hide real regressions; instead, the
// figures a verdict names as regressed are measured once more, and a figure stays regressed only if
// that second measurement, judged the same way, regresses too. A false alarm needs two bursts on
// the same figure; a real regression shows in both.
namespace tessel::experiments::nightly {

// Measures the named figures again (their full names) and returns a record with them.
using Remeasure = std::function<absl::StatusOr<Record>(const std::vector<std::string>& figures)>;

// Remeasures the figures of `verdict` that regressed (not missing ones: those were not measured)
// and judges the remeasured record against `baseline` and `history` with `options`. Each such
// figure keeps its first value and gets `rerun_value`; its status becomes the rerun's (so a
// figure that regressed only once is unchanged or improved), and `passed` is recomputed. Errors:
// the remeasurement's, and Internal when it lacks a figure it was asked for.
absl::Status ConfirmRegressions(Verdict& verdict, const Record& baseline,
                                const std::vector<Record>& history, const Remeasure& remeasure,
                                const JudgeOptions& options = {});

}  // namespace tessel::experiments::nightly
