#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel tune`: tunes one operator task and appends every trial to a log.
//   tessel tune --workload C6 [--template T] | --template T --args JSON
//               [--target llvm] [--tuner xgb|treernn|random|ga|grid | --model M --explorer E]
//               [--trials N] --log LOG
//               [--seed S] [--threads T] [--early-stopping N] [--transfer-from LOG[,LOG...]]
//               [--features itervar|knob|curve] [--repeat R] [--min-repeat-ms MS] [--timeout S]
// Rerunning with the same log resumes. Whole models (ONNX, networks) come with the graph compiler.
namespace tessel::cli {

absl::Status TuneCommand(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
