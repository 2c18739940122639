#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <utility>
#include <vector>

// The figures of an experiment: experiments/plot.py (matplotlib, run by /usr/bin/python3) turns
// trials.csv into one PNG per workload.
namespace tessel::experiments {

// plot.py in the running binary's runfiles (runfiles.h); NotFound naming the places tried.
absl::StatusOr<std::string> FindPlotScript();

// Runs `python script trials_csv out_dir --title title`; returns (workload, PNG file name in
// out_dir) per workload plotted. FailedPrecondition when matplotlib is missing, Internal with the
// script's message for any other failure.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> RunPlotScript(
    const std::string& script, const std::string& trials_csv, const std::string& out_dir,
    const std::string& title, const std::string& python = "/usr/bin/python3");

}  // namespace tessel::experiments
