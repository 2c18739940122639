#include "experiments/nightly/confirm.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

namespace tessel::experiments::nightly {

absl::Status ConfirmRegressions(Verdict& verdict, const Record& baseline,
                                const std::vector<Record>& history, const Remeasure& remeasure,
                                const JudgeOptions& options) {
  std::vector<std::string> regressed;
  for (const FigureVerdict& f : verdict.figures) {
    if (f.status == FigureStatus::kRegressed) regressed.push_back(f.name);
  }
  if (regressed.empty()) return absl::OkStatus();

  absl::StatusOr<Record> rerun = remeasure(regressed);
  if (!rerun.ok()) return rerun.status();
  // The rerun is judged on the regressed figures alone: the others were not measured again.
  Record judged_against = baseline;
  std::erase_if(judged_against.figures, [&](const Figure& f) {
    return std::find(regressed.begin(), regressed.end(), f.name) == regressed.end();
  });
  absl::StatusOr<Verdict> second = Judge(*rerun, judged_against, history, options);
  if (!second.ok()) return second.status();

  verdict.passed = true;
  for (FigureVerdict& f : verdict.figures) {
    if (f.status == FigureStatus::kRegressed) {
      auto again = std::find_if(second->figures.begin(), second->figures.end(),
                                [&](const FigureVerdict& g) { return g.name == f.name; });
      if (again == second->figures.end() || again->status == FigureStatus::kMissing) {
        return absl::InternalError(
            absl::StrCat("the figure '", f.name, "' was measured again but has no value"));
      }
      f.rerun_value = again->new_value;
      f.status = again->status;
    }
    if (f.status == FigureStatus::kRegressed || f.status == FigureStatus::kMissing) {
      verdict.passed = false;
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::experiments::nightly
