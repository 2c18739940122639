#include "cli/model_source.h"

#include <absl/status/status.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>

#include "compiler/graph/onnx/import.h"
#include "compiler/support/status_macros.h"
#include "workloads/networks/network.h"

namespace tessel::cli {

absl::StatusOr<std::pair<std::string, std::string>> SplitPair(const std::string& flag,
                                                              const std::string& word,
                                                              const std::string& form) {
  const size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == word.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " takes ", form, ", got '", word, "'"));
  }
  return std::make_pair(word.substr(0, eq), word.substr(eq + 1));
}

absl::StatusOr<graph::Graph> ReadModel(const CommandArgs& args, const std::string& command,
                                       const std::string& other_workloads) {
  TESSEL_ASSIGN_OR_RETURN(std::string workload, args.Value("workload", ""));
  if (!workload.empty()) {
    if (!args.positional().empty()) {
      return absl::InvalidArgumentError(absl::StrCat("give MODEL.onnx or --workload, not both ('",
                                                     args.positional().front(), "')"));
    }
    if (!args.Values("dim").empty()) {
      return absl::InvalidArgumentError("--dim goes with MODEL.onnx, not --workload");
    }
    TESSEL_ASSIGN_OR_RETURN(int64_t batch, args.Int("batch", 1));
    absl::StatusOr<graph::Graph> g =
        workloads::networks::BuildNetwork(workload, {.batch = batch, .seed = 0});
    if (!g.ok()) {
      const bool unknown = absl::IsNotFound(g.status()) && !other_workloads.empty();
      return absl::InvalidArgumentError(absl::StrCat("--workload ", workload, ": ",
                                                     g.status().message(),
                                                     unknown ? "; " + other_workloads : ""));
    }
    return g;
  }
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError(
        args.positional().empty()
            ? absl::StrCat("give the model to ", command, ": MODEL.onnx or --workload NAME")
            : absl::StrCat("'", command, "' takes one model, got '", args.positional()[1],
                           "' too"));
  }
  if (!args.Values("batch").empty()) {
    return absl::InvalidArgumentError(
        "--batch goes with --workload; an ONNX model's batch is its own (or --dim NAME=V)");
  }
  graph::onnx::ImportOptions options;
  for (const std::string& dim : args.Values("dim")) {
    TESSEL_ASSIGN_OR_RETURN(auto pair, SplitPair("dim", dim, "NAME=VALUE"));
    int64_t value = 0;
    if (!absl::SimpleAtoi(pair.second, &value) || value < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--dim ", dim, ": the value must be a positive integer"));
    }
    options.dims[pair.first] = value;
  }
  return graph::onnx::ImportOnnxFile(args.positional().front(), options);
}

}  // namespace tessel::cli
