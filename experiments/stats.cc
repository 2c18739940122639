#include "experiments/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessel::experiments {

std::vector<double> RunningBest(const std::vector<Trial>& trials) {
  std::vector<double> best;
  best.reserve(trials.size());
  double so_far = std::numeric_limits<double>::infinity();
  for (const Trial& t : trials) {
    if (t.cost_seconds > 0 && std::isfinite(t.cost_seconds))
      so_far = std::min(so_far, t.cost_seconds);
    best.push_back(so_far);
  }
  return best;
}

RunSummary Summarize(const std::vector<Trial>& trials, double baseline_seconds) {
  RunSummary s;
  s.trials = static_cast<int>(trials.size());
  const std::vector<double> best = RunningBest(trials);
  s.final_best_seconds = best.empty() ? std::numeric_limits<double>::infinity() : best.back();
  if (!std::isfinite(s.final_best_seconds)) return s;
  const bool has_baseline = baseline_seconds > 0 && std::isfinite(baseline_seconds);
  if (has_baseline) s.final_speedup = baseline_seconds / s.final_best_seconds;
  // Compared as speedups (time ratios), the form the definitions use, so that a run whose final
  // best equals the baseline counts as reaching it.
  int good = 0;
  for (const Trial& t : trials)
    good += t.cost_seconds > 0 && std::isfinite(t.cost_seconds) &&
            s.final_best_seconds / t.cost_seconds >= 0.9;
  s.share_within_90pct = static_cast<double>(good) / static_cast<double>(trials.size());
  if (has_baseline) s.trials_to_baseline = TrialsToReach(best, baseline_seconds, 1.0);
  s.trials_to_90pct_of_final = TrialsToReach(best, s.final_best_seconds, 0.9);
  return s;
}

std::optional<int> TrialsToReach(const std::vector<double>& running_best, double reference_seconds,
                                 double fraction) {
  for (size_t t = 0; t < running_best.size(); ++t) {
    if (std::isfinite(running_best[t]) && reference_seconds / running_best[t] >= fraction) {
      return static_cast<int>(t) + 1;
    }
  }
  return std::nullopt;
}

std::optional<double> BestAfter(const std::vector<double>& running_best, int n) {
  if (n < 1 || running_best.size() < static_cast<size_t>(n)) return std::nullopt;
  const double best = running_best[n - 1];
  if (!std::isfinite(best)) return std::nullopt;
  return best;
}

std::vector<int> Checkpoints(int trials) {
  std::vector<int> out;
  for (int n = 100; n <= trials; n *= 2) out.push_back(n);
  return out;
}

std::optional<double> MedianOfOptional(const std::vector<std::optional<double>>& values) {
  if (values.empty()) return std::nullopt;
  constexpr double kNever = std::numeric_limits<double>::infinity();
  std::vector<double> sorted;
  for (const std::optional<double>& v : values) sorted.push_back(v ? *v : kNever);
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  if (!std::isfinite(median)) return std::nullopt;
  return median;
}

}  // namespace tessel::experiments
