#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <utility>

#include "cli/command_args.h"
#include "compiler/graph/graph.h"

// The model a command works on, from its arguments: an ONNX file (the one positional word, with
// `--dim NAME=V` for its symbolic dimensions) or a network of workloads/networks (`--workload
// NAME [--batch N]`). Shared by `tessel compile` and `tessel tune`, whose ArgSpecs declare the
// flags workload, batch and dim.
namespace tessel::cli {

// The graph. `command` names the command in messages ("give the model to compile: ..."). Errors
// (InvalidArgument unless the importer's) name the flag or word: both or neither of MODEL.onnx and
// --workload, two models, --dim with --workload or without NAME=V, --batch with an ONNX file, an
// unknown network ("--workload NAME: ..." listing the networks, then `other_workloads`: what else
// the command's --workload may name), a bad batch; the ONNX importer's name the file and node.
absl::StatusOr<graph::Graph> ReadModel(const CommandArgs& args, const std::string& command,
                                       const std::string& other_workloads = "");

// "NAME=VALUE" split at the first '='; an error names the flag, the expected `form` and the word.
absl::StatusOr<std::pair<std::string, std::string>> SplitPair(const std::string& flag,
                                                              const std::string& word,
                                                              const std::string& form);

}  // namespace tessel::cli
