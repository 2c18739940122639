#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel bench nightly [--quick] [--baseline FILE] [--history FILE] [--out DIR]
// [--update-baseline] [--threads N] [--only PREFIX,...] [--results DIR]`: the regression suite
// (experiments/nightly/suite.h) run once, its record appended to the history, judged against the
// baseline (verdict.h) and reported in DIR: record.json, benchmark.json (Google Benchmark's
// format), report.md and one trend plot per figure family (plots/<family>.png). Defaults, per
// CPU and suite: results/nightly/<cpu>/baseline_<suite>.json, history_<suite>.jsonl, and
// out_<suite>/.
//
// The exit is non-zero on a regression beyond a figure's measured spread, each failure one line
// naming the figure, the old and new value and the commit range; without a baseline there is
// nothing to judge (a line says so, and --update-baseline writes one). --update-baseline makes
// the baseline the median of this run and the history's last runs (up to 5 in all) of the same
// suite, CPU and threads, after reporting, and then exits zero.
//
// --plant poor_config,unfused,slow_compile plants regressions on purpose (the verdict's own
// test): such a run is judged and reported but never appended to the history or made a baseline.
namespace tessel::cli {

absl::Status BenchNightly(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
