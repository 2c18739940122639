#include "experiments/compare_models.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "baselines/torch/graph_reference.h"
#include "baselines/torch/networks/torch_network.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "experiments/side_process.h"
#include "workloads/networks/network.h"

namespace tessel::experiments {
namespace {

using Outputs = std::vector<runtime::NDArray>;

absl::Status CheckOptions(const CompareOptions& o, const std::vector<ModelVariant>& variants) {
  if (variants.empty()) return absl::InvalidArgumentError("no variants to compare");
  if (o.threads < 1)
    return absl::InvalidArgumentError(absl::StrCat("threads must be >= 1, got ", o.threads));
  if (o.batch < 1)
    return absl::InvalidArgumentError(absl::StrCat("batch must be >= 1, got ", o.batch));
  if (o.repeat < 1)
    return absl::InvalidArgumentError(absl::StrCat("repeat must be >= 1, got ", o.repeat));
  if (o.warmup < 0)
    return absl::InvalidArgumentError(absl::StrCat("warmup must be >= 0, got ", o.warmup));
  if (!(o.min_repeat_ms >= 0) || !std::isfinite(o.min_repeat_ms)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_repeat_ms must be a number >= 0, got ", o.min_repeat_ms));
  }
  return absl::OkStatus();
}

// The timing worker's request for a variant.
nlohmann::json VariantRequest(const std::string& network, const ModelVariant& variant,
                              const target::Target& target, const CompareOptions& o) {
  nlohmann::json r = {{"kind", "network"},
                      {"network", network},
                      {"batch", o.batch},
                      {"threads", o.threads},
                      {"side", variant.libtorch ? "libtorch" : "tessel"}};
  if (!variant.libtorch) {
    r["target"] = target.ToString();
    if (!variant.onnx_file.empty()) r["onnx"] = variant.onnx_file;
    r["logs"] = o.logs;
    r["compile"] = {{"optimize_graph", variant.compile.optimize_graph},
                    {"fuse", variant.compile.fuse},
                    {"alter_layout", variant.compile.alter_layout}};
  }
  return r;
}

// NotFound naming the network when it is not one of workloads/networks, or has no libtorch
// version and a variant asks for one.
absl::Status CheckNetwork(const std::string& network, const std::vector<ModelVariant>& variants) {
  std::vector<std::string> known = workloads::networks::NetworkNames();
  for (const std::string& w : workloads::networks::ModernNetworkNames()) known.push_back(w);
  for (const std::string& w : workloads::networks::FusionWorkloadNames()) known.push_back(w);
  if (std::find(known.begin(), known.end(), network) == known.end()) {
    return absl::NotFoundError(
        absl::StrCat("unknown network '", network, "' (known: ", absl::StrJoin(known, ", "), ")"));
  }
  const std::vector<std::string> torch = baselines::TorchNetworkNames();
  for (const ModelVariant& v : variants) {
    if (v.libtorch && std::find(torch.begin(), torch.end(), network) == torch.end()) {
      return absl::NotFoundError(
          absl::StrCat("variant '", v.name, "': no torch network '", network,
                       "' (networks with a libtorch version: ", absl::StrJoin(torch, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

double PairedSpeedup(const VariantTiming& base, const VariantTiming& v) {
  std::vector<double> ratios;
  for (size_t i = 0; i < std::min(base.seconds.size(), v.seconds.size()); ++i) {
    ratios.push_back(base.seconds[i] / v.seconds[i]);
  }
  return runtime::Median(ratios);
}

absl::Status CheckSameOutputs(const std::string& network, const std::string& variant,
                              const Outputs& got, const std::string& reference, const Outputs& want,
                              const ops::Tolerance& tolerance) {
  absl::Status same = ops::CompareOutputs(got, want, tolerance, reference);
  if (same.ok()) return same;
  return absl::InternalError(absl::StrCat(network, ": variant '", variant, "' differs from ",
                                          reference, ": ", same.message()));
}

absl::StatusOr<ModelComparison> CompareModels(const std::string& network,
                                              const std::vector<ModelVariant>& variants,
                                              const CompareOptions& options) {
  TESSEL_RETURN_IF_ERROR(CheckOptions(options, variants));
  TESSEL_RETURN_IF_ERROR(CheckNetwork(network, variants));
  ModelComparison result;
  result.network = network;
  TESSEL_ASSIGN_OR_RETURN(result.target, target::ResolveModelTarget(options.target));

  std::vector<std::unique_ptr<SideProcess>> processes;
  std::vector<SideProcess*> sides;
  for (const ModelVariant& variant : variants) {
    absl::StatusOr<std::unique_ptr<SideProcess>> side =
        SideProcess::Start(absl::StrCat("variant '", variant.name, "'"),
                           VariantRequest(network, variant, result.target, options));
    if (!side.ok()) {
      return absl::Status(side.status().code(),
                          absl::StrCat(network, ": ", side.status().message()));
    }
    VariantTiming timing;
    timing.name = variant.name;
    timing.libtorch = variant.libtorch;
    const nlohmann::json& info = (*side)->info();
    if (!variant.libtorch) {
      timing.compile_seconds = info.value("compile_seconds", 0.0);
      timing.steps = info.value("steps", 0);
      timing.fused_steps = info.value("fused_steps", 0);
      timing.kernels = info.value("kernels", 0);
      timing.tuned_kernels = info.value("tuned_kernels", 0);
      timing.warnings = info.value("warnings", std::vector<std::string>{});
    }
    result.variants.push_back(std::move(timing));
    sides.push_back(side->get());
    processes.push_back(*std::move(side));
  }

  // 1. Outputs, against the first libtorch variant or the node-by-node reference.
  const auto torch = std::find_if(variants.begin(), variants.end(),
                                  [](const ModelVariant& v) { return v.libtorch; });
  Outputs reference;
  if (torch != variants.end()) {
    result.reference = absl::StrCat("libtorch (variant '", torch->name, "')");
    reference = sides[static_cast<size_t>(torch - variants.begin())]->outputs();
  } else {
    result.reference = "the graph evaluated node by node by libtorch";
    // The graph the first variant ran: its inputs are of that graph's types.
    graph::Graph g;
    if (!variants[0].onnx_file.empty()) {
      TESSEL_ASSIGN_OR_RETURN(g, graph::onnx::ImportOnnxFile(variants[0].onnx_file));
    } else {
      TESSEL_ASSIGN_OR_RETURN(
          g, workloads::networks::BuildNetwork(network, {.batch = options.batch, .seed = 0}));
    }
    TESSEL_ASSIGN_OR_RETURN(reference, baselines::EvaluateReference(g, sides[0]->inputs()));
  }
  for (size_t v = 0; v < sides.size(); ++v) {
    if (variants[v].libtorch) continue;
    TESSEL_RETURN_IF_ERROR(CheckSameOutputs(network, variants[v].name, sides[v]->outputs(),
                                            result.reference, reference, options.tolerance));
  }

  // 2. Warm-up rounds, 3. runs per repeat, 4. timed rounds.
  absl::StatusOr<std::vector<SideTiming>> timed =
      TimeRoundRobin(sides, {.warmup = options.warmup,
                             .repeat = options.repeat,
                             .min_repeat_ms = options.min_repeat_ms,
                             .warm_runs_per_repeat = 1});
  if (!timed.ok()) {
    return absl::Status(timed.status().code(),
                        absl::StrCat(network, ": ", timed.status().message()));
  }
  for (size_t v = 0; v < sides.size(); ++v) {
    result.variants[v].seconds = (*timed)[v].seconds;
    result.variants[v].runs_per_repeat = static_cast<int>((*timed)[v].runs_per_repeat);
    result.variants[v].max_interference = (*timed)[v].max_interference;
  }
  return result;
}

}  // namespace tessel::experiments
