#include "experiments/compare_models.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

#include "baselines/torch/networks/torch_network.h"
#include "compiler/driver/compile_target.h"
#include "compiler/driver/compiled_model.h"
#include "compiler/graph/reference_eval.h"
#include "compiler/runtime/graph_executor.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "workloads/networks/network.h"

namespace tessel::experiments {
namespace {

using Clock = std::chrono::steady_clock;
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

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A variant ready to run: the libtorch network, or Tessel's compiled model and its executor.
struct Prepared {
  std::unique_ptr<driver::CompiledModel> model;
  std::optional<runtime::GraphExecutor> executor;
  std::optional<baselines::TorchNetwork> torch;

  absl::StatusOr<Outputs> Run(const Outputs& inputs) {
    if (torch) return torch->Run(inputs);
    return executor->Run(inputs);
  }
};

absl::StatusOr<Prepared> Prepare(const ModelVariant& variant, const std::string& network,
                                 const graph::Graph& g, const CompareOptions& options,
                                 VariantTiming& timing) {
  Prepared p;
  if (variant.libtorch) {
    absl::StatusOr<baselines::TorchNetwork> torch = baselines::MakeTorchNetwork(network, g);
    if (!torch.ok()) {
      return absl::Status(torch.status().code(),
                          absl::StrCat("variant '", variant.name, "': ", torch.status().message()));
    }
    p.torch.emplace(*std::move(torch));
    return p;
  }
  const Clock::time_point start = Clock::now();
  absl::StatusOr<driver::CompiledModel> model =
      driver::Compile(g, options.target, options.log, variant.compile);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat(network, ": variant '", variant.name,
                                     "' does not compile: ", model.status().message()));
  }
  timing.compile_seconds = Seconds(start);
  p.model = std::make_unique<driver::CompiledModel>(*std::move(model));
  timing.steps = static_cast<int>(p.model->steps.size());
  timing.fused_steps = p.model->NumFusedSteps();
  timing.kernels = static_cast<int>(p.model->kernels.size());
  timing.tuned_kernels = p.model->NumTuned();
  timing.warnings = p.model->warnings;
  TESSEL_ASSIGN_OR_RETURN(runtime::GraphExecutor executor,
                          driver::MakeExecutor(*p.model, {.threads = options.threads}));
  p.executor.emplace(std::move(executor));
  return p;
}

// Runs variant `v` `runs` times back to back; the mean seconds per run.
absl::StatusOr<double> TimeBatch(Prepared& v, const std::string& name, const Outputs& inputs,
                                 int runs) {
  const Clock::time_point start = Clock::now();
  for (int r = 0; r < runs; ++r) {
    absl::StatusOr<Outputs> out = v.Run(inputs);
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          absl::StrCat("variant '", name, "': ", out.status().message()));
    }
  }
  return Seconds(start) / runs;
}

// Grows the runs of one repeat until it lasts min_repeat_ms: from the last batch's time, aim 10%
// past the goal, at least doubling and at most x16 per step (runtime/timer.h's rule).
absl::StatusOr<int> CalibrateRuns(Prepared& v, const std::string& name, const Outputs& inputs,
                                  double min_repeat_ms) {
  int runs = 1;
  if (min_repeat_ms <= 0) return runs;
  const double goal = min_repeat_ms * 1e-3;
  while (true) {
    TESSEL_ASSIGN_OR_RETURN(double per_run, TimeBatch(v, name, inputs, runs));
    const double batch = per_run * runs;
    if (batch >= goal || runs >= (1 << 24)) return runs;
    const double wanted = batch > 0 ? runs * goal * 1.1 / batch : 16.0 * runs;
    runs = static_cast<int>(std::clamp(std::ceil(wanted), 2.0 * runs, 16.0 * runs));
  }
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
  ModelComparison result;
  result.network = network;
  TESSEL_ASSIGN_OR_RETURN(result.target, driver::ResolveCompileTarget(options.target));
  // Before compiling: the templates size their parallel loops from the pool (TargetFacts).
  runtime::ThreadPool::Global().SetNumThreads(options.threads);
  TESSEL_RETURN_IF_ERROR(baselines::SetTorchThreads(options.threads));

  TESSEL_ASSIGN_OR_RETURN(graph::Graph g, workloads::networks::BuildNetwork(
                                              network, {.batch = options.batch, .seed = 0}));
  TESSEL_ASSIGN_OR_RETURN(const Outputs inputs,
                          workloads::networks::NetworkInputs(network, g, /*seed=*/1));
  std::vector<Prepared> prepared;
  for (const ModelVariant& variant : variants) {
    VariantTiming timing;
    timing.name = variant.name;
    timing.libtorch = variant.libtorch;
    TESSEL_ASSIGN_OR_RETURN(Prepared p, Prepare(variant, network, g, options, timing));
    prepared.push_back(std::move(p));
    result.variants.push_back(std::move(timing));
  }

  // 1. Outputs, against the first libtorch variant or the node-by-node reference.
  std::vector<Outputs> outputs;
  for (size_t v = 0; v < prepared.size(); ++v) {
    absl::StatusOr<Outputs> out = prepared[v].Run(inputs);
    if (!out.ok()) {
      return absl::Status(
          out.status().code(),
          absl::StrCat(network, ": variant '", variants[v].name, "': ", out.status().message()));
    }
    outputs.push_back(*std::move(out));
  }
  const auto torch = std::find_if(variants.begin(), variants.end(),
                                  [](const ModelVariant& v) { return v.libtorch; });
  Outputs reference;
  if (torch != variants.end()) {
    result.reference = absl::StrCat("libtorch (variant '", torch->name, "')");
    reference = outputs[static_cast<size_t>(torch - variants.begin())];
  } else {
    result.reference = "the graph evaluated node by node by libtorch";
    TESSEL_ASSIGN_OR_RETURN(reference, graph::EvaluateReference(g, inputs));
  }
  for (size_t v = 0; v < prepared.size(); ++v) {
    if (variants[v].libtorch) continue;
    TESSEL_RETURN_IF_ERROR(CheckSameOutputs(network, variants[v].name, outputs[v], result.reference,
                                            reference, options.tolerance));
  }

  // 2. Warm-up rounds, 3. runs per repeat, 4. timed rounds.
  for (int w = 0; w < options.warmup; ++w) {
    for (size_t v = 0; v < prepared.size(); ++v) {
      TESSEL_RETURN_IF_ERROR(TimeBatch(prepared[v], variants[v].name, inputs, 1).status());
    }
  }
  for (size_t v = 0; v < prepared.size(); ++v) {
    TESSEL_ASSIGN_OR_RETURN(
        result.variants[v].runs_per_repeat,
        CalibrateRuns(prepared[v], variants[v].name, inputs, options.min_repeat_ms));
  }
  for (int r = 0; r < options.repeat; ++r) {
    for (size_t v = 0; v < prepared.size(); ++v) {
      TESSEL_ASSIGN_OR_RETURN(double seconds, TimeBatch(prepared[v], variants[v].name, inputs,
                                                        result.variants[v].runs_per_repeat));
      result.variants[v].seconds.push_back(seconds);
    }
  }
  return result;
}

}  // namespace tessel::experiments
