#include "experiments/nightly/verdict.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "compiler/runtime/timer.h"

namespace tessel::experiments::nightly {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The median absolute deviation of normal values times this is their standard deviation.
constexpr double kMadToSd = 1.4826;
// The standard deviation of the median of n normal values is about this / sqrt(n) times theirs.
constexpr double kMedianEfficiency = 1.2533;
// The family's pooled run-to-run spread counts as this many runs' worth of evidence about a
// figure's own: a median absolute deviation from n changes is worth about 0.37 n of them.
constexpr double kFamilyWeight = 10;
constexpr double kMadEvidence = 0.37;

bool Positive(double v) { return std::isfinite(v) && v > 0; }

// The standard deviation of a median of n values whose own standard deviation is sd.
double SpreadOfMedian(double sd, size_t n) {
  if (n == 0) return kNaN;
  return n < 3 ? sd / std::sqrt(static_cast<double>(n))
               : kMedianEfficiency * sd / std::sqrt(static_cast<double>(n));
}

// The relative spread (robust standard deviation / median) of the finite values; NaN for fewer
// than 3 of them or a median that is not positive.
double RelativeSpread(const std::vector<double>& values, size_t* count) {
  std::vector<double> finite;
  for (double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  *count = finite.size();
  if (finite.size() < 3) return kNaN;
  const double m = runtime::Median(finite);
  if (!(m > 0)) return kNaN;
  std::vector<double> deviations;
  for (double v : finite) deviations.push_back(std::fabs(v - m));
  return kMadToSd * runtime::Median(deviations) / m;
}

// The spread of the median of a figure's repeats (its value); 0 when too few to tell.
double RepeatSpread(const Figure& f) {
  size_t n = 0;
  const double spread = RelativeSpread(f.repeats, &n);
  return std::isfinite(spread) ? SpreadOfMedian(spread, n) : 0;
}

// Run-to-run spread of one run's value, from the relative changes between successive runs: a
// change is the difference of two runs' values, so its spread is sqrt(2) times theirs.
double SpreadFromChanges(const std::vector<double>& changes) {
  std::vector<double> magnitudes;
  for (double c : changes) magnitudes.push_back(std::fabs(c));
  return kMadToSd * runtime::Median(magnitudes) / std::sqrt(2.0);
}

struct RunSpread {
  std::vector<double> changes;  // log(v[i] / v[i-1]) over the history runs that have the figure
  double own = kNaN;
  double pooled = kNaN;  // own, shrunk toward its family's
};

bool SameSetting(const Record& a, const Record& b) {
  return a.suite == b.suite && a.cpu == b.cpu && a.threads == b.threads;
}

std::string Setting(const Record& r) {
  return absl::StrCat("suite '", r.suite, "' on cpu '", r.cpu, "' with ", r.threads, " threads");
}

// The history runs that count: same setting, single runs, not the current one, the latest
// `window` of them.
std::vector<const Record*> RelevantHistory(const Record& current,
                                           const std::vector<Record>& history,
                                           const JudgeOptions& options) {
  std::vector<const Record*> runs;
  for (const Record& r : history) {
    if (!SameSetting(r, current) || r.runs != 1) continue;
    if (r.date == current.date && r.commit == current.commit) continue;
    runs.push_back(&r);
  }
  const size_t window = static_cast<size_t>(std::max(options.history_window, 0));
  if (runs.size() > window) runs.erase(runs.begin(), runs.end() - window);
  return runs;
}

std::map<std::string, RunSpread> RunSpreads(const Record& baseline,
                                            const std::vector<const Record*>& history,
                                            const JudgeOptions& options) {
  std::map<std::string, RunSpread> spreads;
  std::map<std::string, std::vector<double>> family_changes;
  for (const Figure& f : baseline.figures) {
    std::vector<double> values;
    for (const Record* r : history) {
      const Figure* h = r->Find(f.name);
      if (h != nullptr && Positive(h->value)) values.push_back(h->value);
    }
    if (static_cast<int>(values.size()) < std::max(options.min_history, 2)) continue;
    RunSpread& s = spreads[f.name];
    for (size_t i = 1; i < values.size(); ++i)
      s.changes.push_back(std::log(values[i] / values[i - 1]));
    s.own = SpreadFromChanges(s.changes);
    std::vector<double>& pool = family_changes[f.family];
    pool.insert(pool.end(), s.changes.begin(), s.changes.end());
  }
  for (const Figure& f : baseline.figures) {
    auto it = spreads.find(f.name);
    if (it == spreads.end()) continue;
    RunSpread& s = it->second;
    const double family = SpreadFromChanges(family_changes[f.family]);
    const double evidence = kMadEvidence * static_cast<double>(s.changes.size());
    s.pooled = std::sqrt((evidence * s.own * s.own + kFamilyWeight * family * family) /
                         (evidence + kFamilyWeight));
  }
  return spreads;
}

// The standard deviation of new / old - 1 from noise alone (see the header).
double Noise(const Figure& now, const Figure& old, int baseline_runs, double run_spread,
             bool run_spread_measured) {
  const double current = std::max(RepeatSpread(now), run_spread);
  double base = 0;
  if (baseline_runs > 1 && old.repeats.size() > 1) {
    // The baseline's repeats are its runs' values.
    size_t n = 0;
    const double between = RelativeSpread(old.repeats, &n);
    const double sd =
        run_spread_measured || !std::isfinite(between) ? run_spread : std::max(between, run_spread);
    base = SpreadOfMedian(sd, old.repeats.size());
  } else {
    base = std::max(RepeatSpread(old), run_spread);
  }
  return std::sqrt(current * current + base * base);
}

}  // namespace

const char* FigureStatusName(FigureStatus status) {
  switch (status) {
    case FigureStatus::kUnchanged:
      return "unchanged";
    case FigureStatus::kImproved:
      return "improved";
    case FigureStatus::kRegressed:
      return "regressed";
    case FigureStatus::kMissing:
      return "missing";
    case FigureStatus::kNew:
      return "new";
  }
  return "unknown";
}

std::string FormatValue(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "-";
  const double a = std::fabs(value);
  const std::string number = a >= 100   ? absl::StrFormat("%.0f", value)
                             : a >= 10  ? absl::StrFormat("%.1f", value)
                             : a >= 0.1 ? absl::StrFormat("%.2f", value)
                                        : absl::StrFormat("%.3g", value);
  if (unit.empty()) return number;
  return unit == "x" ? absl::StrCat(number, "x") : absl::StrCat(number, " ", unit);
}

std::string FormatPercent(double fraction, bool sign) {
  if (!std::isfinite(fraction)) return "-";
  return sign ? absl::StrFormat("%+.1f%%", 100 * fraction)
              : absl::StrFormat("%.1f%%", 100 * fraction);
}

absl::StatusOr<Verdict> Judge(const Record& current, const Record& baseline,
                              const std::vector<Record>& history, const JudgeOptions& options) {
  if (!SameSetting(current, baseline)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the baseline (commit ", baseline.commit, ") was recorded for ", Setting(baseline),
        ", this run is ", Setting(current),
        ": no figure can be compared; record a baseline for this setting with --update-baseline"));
  }
  for (const Figure& f : baseline.figures) {
    if (!Positive(f.value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the baseline's figure '", f.name, "' has no positive value (",
                       FormatValue(f.value, f.unit), ") to compare with"));
    }
  }
  const std::vector<const Record*> relevant = RelevantHistory(current, history, options);
  const std::map<std::string, RunSpread> spreads = RunSpreads(baseline, relevant, options);

  Verdict verdict;
  verdict.commit_range = absl::StrCat(baseline.commit, "..", current.commit);
  verdict.baseline_date = baseline.date;
  verdict.baseline_runs = baseline.runs;
  verdict.history_runs = static_cast<int>(relevant.size());
  for (const Figure& old : baseline.figures) {
    FigureVerdict row;
    row.name = old.name;
    row.family = old.family;
    row.unit = old.unit;
    row.higher_is_better = old.higher_is_better;
    row.old_value = old.value;
    row.new_value = kNaN;
    row.change = kNaN;
    row.noise = kNaN;
    row.threshold = kNaN;
    const Figure* now = current.Find(old.name);
    if (now == nullptr || !Positive(now->value)) {
      row.status = FigureStatus::kMissing;
      verdict.passed = false;
      verdict.figures.push_back(row);
      continue;
    }
    row.new_value = now->value;
    row.change = now->value / old.value - 1;
    auto spread = spreads.find(old.name);
    const bool measured = spread != spreads.end();
    const double run_spread = measured ? spread->second.pooled : options.run_spread_prior;
    row.noise = Noise(*now, old, baseline.runs, run_spread, measured);
    row.threshold = std::min(options.cap, std::max(options.floor, options.k * row.noise));
    const double worse = old.higher_is_better ? -row.change : row.change;
    if (worse > row.threshold) {
      row.status = FigureStatus::kRegressed;
      verdict.passed = false;
    } else if (-worse > row.threshold) {
      row.status = FigureStatus::kImproved;
    } else {
      row.status = FigureStatus::kUnchanged;
    }
    verdict.figures.push_back(row);
  }
  for (const Figure& now : current.figures) {
    if (baseline.Find(now.name) != nullptr) continue;
    FigureVerdict row;
    row.name = now.name;
    row.family = now.family;
    row.unit = now.unit;
    row.higher_is_better = now.higher_is_better;
    row.old_value = kNaN;
    row.new_value = now.value;
    row.change = kNaN;
    row.noise = kNaN;
    row.threshold = kNaN;
    row.status = FigureStatus::kNew;
    verdict.figures.push_back(row);
  }
  return verdict;
}

std::vector<std::string> FailureLines(const Verdict& verdict) {
  std::vector<std::string> lines;
  for (const FigureVerdict& f : verdict.figures) {
    if (f.status == FigureStatus::kRegressed) {
      lines.push_back(absl::StrCat(
          "regression: ", f.name, " ", FormatValue(f.old_value, f.unit), " -> ",
          FormatValue(f.new_value, f.unit), " (", FormatPercent(f.change, true), ", threshold ",
          FormatPercent(f.threshold, false),
          std::isfinite(f.rerun_value)
              ? absl::StrCat("; ", FormatValue(f.rerun_value, f.unit), " measured again")
              : "",
          "), commits ", verdict.commit_range));
    } else if (f.status == FigureStatus::kMissing) {
      lines.push_back(
          absl::StrCat("missing: ", f.name, " (baseline ", FormatValue(f.old_value, f.unit),
                       ") was not measured in this run, commits ", verdict.commit_range));
    }
  }
  return lines;
}

absl::StatusOr<Record> BaselineFromRuns(const std::vector<Record>& runs) {
  if (runs.empty()) return absl::InvalidArgumentError("a baseline needs at least one run");
  const Record& newest = runs.back();
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!SameSetting(runs[i], newest)) {
      return absl::InvalidArgumentError(absl::StrCat("run ", i, " (commit ", runs[i].commit,
                                                     ") is ", Setting(runs[i]), ", the newest is ",
                                                     Setting(newest)));
    }
    if (runs[i].runs != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("run ", i, " (commit ", runs[i].commit, ") is itself a merged baseline"));
    }
  }
  Record merged = newest;
  merged.runs = static_cast<int>(runs.size());
  for (Figure& f : merged.figures) {
    std::vector<double> values;
    for (const Record& r : runs) {
      const Figure* g = r.Find(f.name);
      if (g != nullptr && std::isfinite(g->value)) values.push_back(g->value);
    }
    f.value = runtime::Median(values);
    f.repeats = values;
  }
  return merged;
}

}  // namespace tessel::experiments::nightly
