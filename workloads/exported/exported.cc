#include "workloads/exported/exported.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <map>

#include "compiler/support/atomic_file.h"
#include "compiler/support/status_macros.h"
#include "workloads/exported/export_graph.h"

namespace tessel::workloads::exported {
namespace {

constexpr char kNetworkKey[] = "tessel.network";
constexpr char kBatchKey[] = "tessel.batch";
constexpr char kSeedKey[] = "tessel.seed";

// torch's input_names and output_names of each network exported node by node.
absl::StatusOr<internal::GraphExportStyle> StyleOf(const std::string& name) {
  if (name == "resnet18" || name == "mobilenet_v1" || name == "mobilenet_v2") {
    return internal::GraphExportStyle{.input_names = {"image"}, .output_names = {"logits"}};
  }
  if (name == "dqn") {
    return internal::GraphExportStyle{
        .input_names = {"frames"}, .output_names = {"action_values"}, .view_flatten = true};
  }
  if (name == "dcgan") {
    return internal::GraphExportStyle{.input_names = {"z"}, .output_names = {"images"}};
  }
  return absl::InternalError(absl::StrCat("no export style for network '", name, "'"));
}

}  // namespace

std::vector<std::string> ExportedNetworkNames() {
  std::vector<std::string> names = networks::NetworkNames();
  for (const std::string& name : networks::ModernNetworkNames()) names.push_back(name);
  return names;
}

absl::StatusOr<::onnx::ModelProto> ExportNetwork(const std::string& name,
                                                 const networks::NetworkOptions& options) {
  const std::vector<std::string> names = ExportedNetworkNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    return absl::NotFoundError(absl::StrCat(
        "no network '", name, "' to export; the networks: ", absl::StrJoin(names, ", ")));
  }
  TESSEL_ASSIGN_OR_RETURN(const graph::Graph g, networks::BuildNetwork(name, options));
  const std::map<std::string, std::string> metadata = {{kNetworkKey, name},
                                                       {kBatchKey, absl::StrCat(options.batch)},
                                                       {kSeedKey, absl::StrCat(options.seed)}};
  if (name == "lstm_lm") return internal::ExportLstmLm(g, metadata);
  if (name == "bert_base") return internal::ExportBert(g, metadata);
  TESSEL_ASSIGN_OR_RETURN(const internal::GraphExportStyle style, StyleOf(name));
  return internal::ExportGraph(g, "main_graph", style, metadata);
}

absl::Status WriteModel(const ::onnx::ModelProto& model, const std::string& path) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    return absl::InternalError(absl::StrCat("cannot serialize the model for ", path));
  }
  return support::WriteFileAtomically(path, bytes);
}

absl::StatusOr<ExportOrigin> ReadExportOrigin(const std::string& path) {
  TESSEL_ASSIGN_OR_RETURN(const std::string bytes, support::ReadFile(path));
  ::onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a readable ONNX model"));
  }
  std::map<std::string, std::string> props;
  for (const auto& p : m.metadata_props()) props[p.key()] = p.value();
  if (!props.count(kNetworkKey)) {
    return absl::NotFoundError(absl::StrCat(
        path, " was not written by `tessel export` (its metadata names no network, key '",
        kNetworkKey, "')"));
  }
  ExportOrigin origin{.network = props[kNetworkKey]};
  int64_t batch = 0;
  uint32_t seed = 0;
  if (!absl::SimpleAtoi(props[kBatchKey], &batch) || batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": metadata '", kBatchKey, "' is '",
                                                   props[kBatchKey], "', not a batch size"));
  }
  if (!absl::SimpleAtoi(props[kSeedKey], &seed)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": metadata '", kSeedKey, "' is '", props[kSeedKey], "', not a seed"));
  }
  origin.batch = batch;
  origin.seed = seed;
  return origin;
}

}  // namespace tessel::workloads::exported
