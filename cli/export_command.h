#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel export`: a network of workloads/networks written as an ONNX file the way PyTorch's
// exporter writes it (workloads/exported/exported.h).
namespace tessel::cli {

// args after "export": `NETWORK -o FILE.onnx [--batch N] [--seed S]`. Prints the file's node and
// initializer counts. Errors name the word or flag: no or several networks, an unknown network
// (listing the names), -o missing, a batch below 1, a seed outside [0, 2^32), an unwritable
// path (nothing written).
absl::Status ExportCommand(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
