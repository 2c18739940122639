#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <utility>
#include <vector>

// Trend plots of a nightly history: experiments/nightly/plot_history.py (matplotlib, run by
// /usr/bin/python3) writes one PNG per figure family, each figure's value over the runs.
namespace tessel::experiments::nightly {

// plot_history.py in the running binary's runfiles (experiments/runfiles.h); NotFound naming the
// places tried.
absl::StatusOr<std::string> FindHistoryPlotScript();

// Runs `python script history_jsonl out_dir --title title`; returns (file stem, PNG file name in
// out_dir) per family plotted, the stem being the family with characters unsafe in a file name
// replaced by '_'. FailedPrecondition when matplotlib is missing, Internal with the script's
// message for any other failure (a bad history names its file and line).
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> PlotHistory(
    const std::string& script, const std::string& history_jsonl, const std::string& out_dir,
    const std::string& title, const std::string& python = "/usr/bin/python3");

}  // namespace tessel::experiments::nightly
