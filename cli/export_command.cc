#include "cli/export_command.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include <map>

#include "cli/command_args.h"
#include "compiler/support/status_macros.h"
#include "workloads/exported/exported.h"

namespace tessel::cli {
namespace {

const ArgSpec& ExportSpec() {
  static const ArgSpec spec{.flags = {{"batch", "the batch size (default 1)"},
                                      {"seed", "the weights' seed (default 0)"},
                                      {"out", "the ONNX file to write (-o)"}},
                            .switches = {},
                            .aliases = {{"o", "out"}}};
  return spec;
}

}  // namespace

absl::Status ExportCommand(std::span<const std::string> arg_words, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse("export", arg_words, ExportSpec()));
  const std::vector<std::string> names = workloads::exported::ExportedNetworkNames();
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("export takes one network name (",
                                                   absl::StrJoin(names, ", "), "), got ",
                                                   args.positional().size(), " words"));
  }
  TESSEL_ASSIGN_OR_RETURN(const std::string path, args.Value("out", ""));
  if (path.empty()) {
    return absl::InvalidArgumentError("-o FILE.onnx is required: where to write the model");
  }
  TESSEL_ASSIGN_OR_RETURN(const int64_t batch, args.Int("batch", 1));
  if (batch < 1)
    return absl::InvalidArgumentError(absl::StrCat("--batch must be >= 1, got ", batch));
  TESSEL_ASSIGN_OR_RETURN(const int64_t seed, args.Int("seed", 0));
  if (seed < 0 || seed > int64_t{0xffffffff}) {
    return absl::InvalidArgumentError(
        absl::StrCat("--seed must be between 0 and 4294967295, got ", seed));
  }
  const std::string& name = args.positional()[0];
  TESSEL_ASSIGN_OR_RETURN(const ::onnx::ModelProto model,
                          workloads::exported::ExportNetwork(
                              name, {.batch = batch, .seed = static_cast<uint32_t>(seed)}));
  TESSEL_RETURN_IF_ERROR(workloads::exported::WriteModel(model, path));
  std::map<std::string, int> ops;
  for (const auto& n : model.graph().node()) ++ops[n.op_type()];
  std::vector<std::string> counts;
  for (const auto& [op, count] : ops) counts.push_back(absl::StrCat(op, " ", count));
  out << absl::StrFormat("wrote %s: %s, opset %d, %d nodes (%s), %d initializers\n", path, name,
                         model.opset_import(0).version(), model.graph().node_size(),
                         absl::StrJoin(counts, ", "), model.graph().initializer_size());
  return absl::OkStatus();
}

}  // namespace tessel::cli
