#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <optional>
#include <ostream>
#include <span>
#include <string>

// `tessel compile` and `tessel run`: whole models compiled to a folder (driver::CompiledModel)
// and run from it.
#include "search/records/apply_history_best.h"

namespace tessel::cli {

// The value of a --log flag: tuning logs, comma-separated (none when empty). Errors start
// "--log: " and name the file.
absl::StatusOr<std::optional<search::ApplyHistoryBest>> ReadLogFlag(const std::string& logs);

// args after "compile": `(MODEL.onnx | --workload NAME [--batch N]) [--target T] [--log L[,L2]]
// [--dim NAME=V ...] [--offload vdla [--calibration N]] -o DIR`. Prints the warnings (one per
// task without a tuned config), a summary and the compile time of each phase. With --offload,
// the model is first quantized for the accelerator (driver/quantize_model.h, calibrated on N
// seeded inputs, default 4) and the convolutions it takes are built for it; a line says how many
// and which stayed float. Errors name the file, flag or node.
absl::Status CompileCommand(std::span<const std::string> args, std::ostream& out);

// args after "run": `DIR --input NAME=FILE.npy ... [--output [NAME=]FILE.npy ...] [--bench
// [--repeat N]] [--threads T]`. Prints each output's type and first values (or writes them with
// --output); --bench then times the model: warm-up runs, then the median of N runs, in ms.
absl::Status RunCommand(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
