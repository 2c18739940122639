#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel log best LOG` and `tessel log summary LOG`: reading tuning logs (search/records).
namespace tessel::cli {

// args after "log": "best LOG" prints the best record of each task as JSON lines (itself a log
// that ApplyHistoryBest reads); "summary LOG" prints a table per task (trials, errors by kind,
// best time, GFLOPS, config). Errors name the log and the malformed line.
absl::Status LogCommand(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
