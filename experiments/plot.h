#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <utility>
#include <vector>

// The figures of an experiment: experiments/plot.py (matplotlib, run by /usr/bin/python3) turns
// a tuning experiment's trials.csv into one PNG per workload, a models experiment's summary.csv
// into one bar chart, and a roofline's points into one roofline plot.
namespace tessel::experiments {

// plot.py in the running binary's runfiles (runfiles.h); NotFound naming the places tried.
absl::StatusOr<std::string> FindPlotScript();

// Runs `python script trials_csv out_dir --title title [--models a,b,...]`; returns (workload,
// PNG file name in out_dir) per figure: <workload>.png (Fig. 12), and with two or more
// model_strategies <workload>_models.png, those strategies' runs seed by seed (Fig. 13).
// FailedPrecondition when matplotlib is missing, Internal with the script's message for any other
// failure.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> RunPlotScript(
    const std::string& script, const std::string& trials_csv, const std::string& out_dir,
    const std::string& title, const std::vector<std::string>& model_strategies = {},
    const std::string& python = "/usr/bin/python3");

// Runs `python script --bars values --png png summary_csv out_dir --title title` (values:
// "speedup" or "ms"); returns the PNG's file name in out_dir. Errors as RunPlotScript.
absl::StatusOr<std::string> RunBarPlotScript(const std::string& script,
                                             const std::string& summary_csv,
                                             const std::string& out_dir, const std::string& title,
                                             const std::string& values, const std::string& png,
                                             const std::string& python = "/usr/bin/python3");

// Runs `python script --roofline --png png roofline_csv out_dir --title title` (the CSV's columns:
// plot.py's docstring; Fig. 10); returns the PNG's file name in out_dir. Errors as RunPlotScript.
absl::StatusOr<std::string> RunRooflinePlotScript(const std::string& script,
                                                  const std::string& roofline_csv,
                                                  const std::string& out_dir,
                                                  const std::string& title, const std::string& png,
                                                  const std::string& python = "/usr/bin/python3");

}  // namespace tessel::experiments
