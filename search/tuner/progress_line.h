#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include "search/tuner/tuner.h"

// The live line a tuning run shows:
//   [task 1/3] C6 xgb+sa seed 0: trials 128/800, best 402.1 GFLOPS (1.21x oneDNN), ETA 9:42
// On a terminal it is rewritten in place; elsewhere (logs, CI) one line per `every` batches.
namespace tessel::search {

class ProgressLine {
 public:
  // `baseline_gflops` > 0 adds the ratio against it, named `baseline_name`.
  ProgressLine(std::ostream& out, bool terminal, std::string label, double baseline_gflops = 0,
               std::string baseline_name = "");
  // Call after each batch (Tune's on_batch).
  void Update(const TuneProgress& progress);
  // Ends the line (a newline on a terminal).
  void Finish();

 private:
  std::ostream& out_;
  bool terminal_;
  std::string label_, baseline_name_;
  double baseline_gflops_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  int first_trials_ = -1;  // trials when this run started (resumed ones do not count for the ETA)
  int updates_ = 0;
};

// "m:ss" or "h:mm:ss".
std::string FormatDuration(double seconds);

}  // namespace tessel::search
