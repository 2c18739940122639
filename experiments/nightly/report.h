#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/nightly/record.h"
#include "experiments/nightly/verdict.h"

// What a nightly run leaves for people (a markdown report) and for tools (Google Benchmark's
// JSON output format, which dashboards and github-action-benchmark read).
namespace tessel::experiments::nightly {

// The run's header (date, commit and state, suite, machine, cpu, threads, library versions, the
// baseline), a PASS or FAIL line with one line per failure (FailureLines), then a table per
// figure family in the order families first appear: figure, baseline, this run, change,
// threshold, status and the absolute times this run measured (Figure::absolute).
std::string MarkdownReport(const Record& current, const Verdict& verdict);

// The facts of Google Benchmark's "context" that a Record does not hold.
struct HostFacts {
  std::string host_name;
  std::string executable;
  int num_cpus = 0;
  int mhz_per_cpu = 0;
  bool cpu_scaling_enabled = false;
  std::vector<double> load_avg;  // 1, 5 and 15 minutes: how busy the shared machine was
};

// This process's host name and executable, the CPUs it can see, their clock (/proc/cpuinfo),
// whether their frequency governor is something other than "performance", and the load average.
HostFacts ThisHost();

// The record in Google Benchmark's JSON output format (as --benchmark_format=json writes it,
// json_schema_version 1): a "context" (date, host_name, executable, num_cpus, mhz_per_cpu,
// cpu_scaling_enabled, caches, load_avg, library_build_type, plus custom context strings: the
// commit and its state, the suite, machine, cpu and each library's version as
// "<library>_version") and one "iteration" benchmark per figure. A figure is the median of its
// repeats, reported as one repetition of one iteration: real_time and cpu_time are our side's
// absolute time ("tessel_ms", "tessel_s", ... in Figure::absolute) in its unit, else the value
// itself (in its unit when that is a time, else "s"); the user counters are "value" (the
// figure), "repeats" (how many) and every number in Figure::absolute; "label" says the figure
// with its unit and which way is better.
nlohmann::json GoogleBenchmarkJson(const Record& r, const HostFacts& host = ThisHost());

}  // namespace tessel::experiments::nightly
