#include "experiments/side_benches.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <memory>

#include "baselines/torch/reference.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/strategy.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"

namespace tessel::experiments {
namespace {

SideComparison Summarize(const std::vector<SideTiming>& timed) {
  SideComparison c;
  c.ours_ms = runtime::Median(timed[0].seconds) * 1e3;
  c.theirs_ms = runtime::Median(timed[1].seconds) * 1e3;
  for (size_t i = 0; i < timed[0].seconds.size(); ++i) {
    c.ratios.push_back(timed[1].seconds[i] / timed[0].seconds[i]);
  }
  c.ratio = runtime::Median(c.ratios);
  c.interference = std::max(timed[0].max_interference, timed[1].max_interference);
  return c;
}

// Winograd's F(4x4, 3x3) transforms add rounding: a looser bound than a direct sum's.
ops::Tolerance ToleranceFor(const std::string& template_name) {
  if (template_name.find("winograd") != std::string::npos) return {1e-2, 1e-2};
  return {2e-3, 2e-3};
}

}  // namespace

absl::StatusOr<GemmComparison> CompareGemm(const GemmShape& shape, int threads,
                                           const RoundRobinOptions& timer) {
  TESSEL_RETURN_IF_ERROR(CheckGemmJob(shape, threads));
  // OpenBLAS's threads spin after each call, and would run into ours in one process.
  const nlohmann::json common = {
      {"kind", "gemm"}, {"m", shape.m}, {"n", shape.n}, {"k", shape.k}, {"threads", threads}};
  nlohmann::json ours_request = common, blas_request = common;
  ours_request["side"] = "tessel";
  blas_request["side"] = "openblas";
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<SideProcess> ours,
                          SideProcess::Start("tessel", ours_request));
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<SideProcess> blas,
                          SideProcess::Start("openblas", blas_request));
  TESSEL_RETURN_IF_ERROR(CompareGemmOutputs(ours->outputs().at(0), blas->outputs().at(0), shape.k));
  TESSEL_ASSIGN_OR_RETURN(std::vector<SideTiming> timed,
                          TimeRoundRobin({ours.get(), blas.get()}, timer));
  GemmComparison c;
  c.timing = Summarize(timed);
  c.compile_ms = ours->info().value("compile_seconds", 0.0) * 1e3;
  return c;
}

absl::StatusOr<LayerComparison> CompareLayer(const workloads::Layer& layer,
                                             const target::TargetFacts& facts, int threads,
                                             const RoundRobinOptions& timer,
                                             const LayerOptions& options) {
  LayerComparison c;
  c.layer = layer.name;
  c.conv = layer.kind == workloads::LayerKind::kConv;
  c.gflop = workloads::Gflop(layer);
  const ops::OpArgs args = workloads::Conv2dArgs(layer);
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::SelectTemplate("conv2d", args, facts));
  c.template_name = t->name;
  nlohmann::json config = nullptr;  // the fallback
  c.config = "fallback";
  if (!options.forced_config.is_null()) {
    config = options.forced_config;
    c.config = "forced";
  } else if (options.history != nullptr) {
    search::Task task{.template_name = c.template_name, .args = args, .target = facts.target};
    TESSEL_ASSIGN_OR_RETURN(ops::Instantiated fallback, ops::InstantiateFallback(*t, args, facts));
    config = options.history->Query(task, fallback.space, fallback.config).ToJson();
    if (options.history->Best(task.Key())) c.config = "tuned";
  }
  const nlohmann::json common = {{"kind", "conv2d"}, {"args", args}, {"threads", threads}};
  nlohmann::json ours_request = common;
  ours_request.update({{"side", "tessel"},
                       {"template", c.template_name},
                       {"config", config},
                       {"seed", 1},
                       {"target", facts.target.ToString()}});
  const std::string where = absl::StrCat(layer.name, ": ");
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<SideProcess> ours,
                          SideProcess::Start(where + "tessel", ours_request));
  nlohmann::json dnnl_request = common;
  dnnl_request.update(
      {{"side", "onednn"},
       {"inputs", {ours->data_dir() + "/input_0.npy", ours->data_dir() + "/input_1.npy"}}});
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<SideProcess> dnnl,
                          SideProcess::Start(where + "oneDNN", dnnl_request));
  TESSEL_ASSIGN_OR_RETURN(std::vector<SideTiming> timed,
                          TimeRoundRobin({ours.get(), dnnl.get()}, timer));
  c.timing = Summarize(timed);
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> want,
                          baselines::TorchReference("conv2d", args, ours->inputs()));
  const absl::Status check =
      ops::CompareOutputs(ours->outputs(), want, ToleranceFor(c.template_name));
  c.correct = check.ok() ? "yes" : std::string("NO: ") + std::string(check.message());
  return c;
}

}  // namespace tessel::experiments
