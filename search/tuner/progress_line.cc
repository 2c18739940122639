#include "search/tuner/progress_line.h"

#include <absl/strings/str_format.h>

#include <cmath>
#include <utility>

namespace tessel::search {

ProgressLine::ProgressLine(std::ostream& out, bool terminal, std::string label,
                           double baseline_gflops, std::string baseline_name)
    : out_(out),
      terminal_(terminal),
      label_(std::move(label)),
      baseline_name_(std::move(baseline_name)),
      baseline_gflops_(baseline_gflops) {}

std::string FormatDuration(double seconds) {
  long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

void ProgressLine::Update(const TuneProgress& p) {
  if (first_trials_ < 0) first_trials_ = p.trials - static_cast<int>(p.batch.size());
  ++updates_;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  int done = p.trials - first_trials_;
  std::string eta = done > 0 ? FormatDuration(elapsed / done * (p.budget - p.trials)) : "?";
  std::string line = absl::StrFormat("%s: trials %d/%d, best %.1f GFLOPS", label_, p.trials,
                                     p.budget, p.best_gflops);
  if (baseline_gflops_ > 0)
    line += absl::StrFormat(" (%.2fx %s)", p.best_gflops / baseline_gflops_, baseline_name_);
  line += ", ETA " + eta;
  if (terminal_) {
    out_ << "\r" << line << "\033[K" << std::flush;
  } else if (updates_ % 8 == 1 || p.trials >= p.budget) {
    out_ << line << "\n" << std::flush;
  }
}

void ProgressLine::Finish() {
  if (terminal_ && updates_ > 0) out_ << "\n" << std::flush;
}

}  // namespace tessel::search
