#include "experiments/nightly/history_plot.h"

#include "experiments/plot.h"
#include "experiments/runfiles.h"

namespace tessel::experiments::nightly {

absl::StatusOr<std::string> FindHistoryPlotScript() {
  return FindRunfile("experiments/nightly/plot_history.py");
}

// plot_history.py takes the arguments of plot.py's line plots and answers the same way (PNG
// names on stdout, exit 2 without matplotlib), so plot.h's runner serves both.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> PlotHistory(
    const std::string& script, const std::string& history_jsonl, const std::string& out_dir,
    const std::string& title, const std::string& python) {
  return RunPlotScript(script, history_jsonl, out_dir, title, {}, python);
}

}  // namespace tessel::experiments::nightly
