#include "experiments/timing_sides.h"

#include <absl/strings/str_cat.h>

#include <chrono>
#include <memory>
#include <optional>

#include "baselines/dnnl/conv2d.h"
#include "baselines/torch/networks/torch_network.h"
#include "compiler/driver/compile_model.h"
#include "compiler/driver/compiled_model.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/ops/template.h"
#include "compiler/runtime/graph_executor.h"
#include "compiler/runtime/npy.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/support/status_macros.h"
#include "experiments/gemm_job.h"
#include "experiments/op_job.h"
#include "search/records/apply_history_best.h"
#include "workloads/networks/network.h"

namespace tessel::experiments {
namespace {

using Clock = std::chrono::steady_clock;
using Outputs = std::vector<runtime::NDArray>;

absl::Status Missing(const std::string& field) {
  return absl::InvalidArgumentError(absl::StrCat("the request has no valid '", field, "'"));
}

absl::StatusOr<std::string> StringField(const nlohmann::json& r, const std::string& field) {
  if (!r.contains(field) || !r[field].is_string()) return Missing(field);
  return r[field].get<std::string>();
}

// The request's "target" (written by the process that starts this worker), parsed.
absl::StatusOr<target::Target> TargetField(const nlohmann::json& r) {
  TESSEL_ASSIGN_OR_RETURN(const std::string text, StringField(r, "target"));
  return target::Target::Parse(text);
}

absl::StatusOr<int64_t> IntField(const nlohmann::json& r, const std::string& field,
                                 int64_t minimum) {
  if (!r.contains(field) || !r[field].is_number_integer() || r[field].get<int64_t>() < minimum) {
    return Missing(field);
  }
  return r[field].get<int64_t>();
}

absl::Status UnknownSide(const std::string& kind, const std::string& side) {
  return absl::InvalidArgumentError(absl::StrCat("kind '", kind, "' has no side '", side, "'"));
}

// A Tessel network: compiled once, its executor kept with it.
struct CompiledNetwork {
  std::optional<search::ApplyHistoryBest> log;
  driver::CompiledModel model;
  std::optional<runtime::GraphExecutor> executor;
  Outputs inputs;
};

absl::StatusOr<TimedSide> NetworkSide(const nlohmann::json& r, const std::string& side,
                                      int threads) {
  TESSEL_ASSIGN_OR_RETURN(const std::string network, StringField(r, "network"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t batch, IntField(r, "batch", 1));
  // Before compiling: the templates size their parallel loops from the pool (target::TargetFacts).
  runtime::ThreadPool::Global().SetNumThreads(threads);
  graph::Graph g;
  if (side == "tessel" && r.contains("onnx")) {
    TESSEL_ASSIGN_OR_RETURN(const std::string path, StringField(r, "onnx"));
    TESSEL_ASSIGN_OR_RETURN(g, graph::onnx::ImportOnnxFile(path));
  } else {
    TESSEL_ASSIGN_OR_RETURN(
        g, workloads::networks::BuildNetwork(network, {.batch = batch, .seed = 0}));
  }
  TimedSide out;
  TESSEL_ASSIGN_OR_RETURN(out.inputs, workloads::networks::NetworkInputs(network, g, /*seed=*/1));
  if (side == "libtorch") {
    TESSEL_RETURN_IF_ERROR(baselines::SetTorchThreads(threads));
    TESSEL_ASSIGN_OR_RETURN(baselines::TorchNetwork made, baselines::MakeTorchNetwork(network, g));
    auto torch = std::make_shared<baselines::TorchNetwork>(std::move(made));
    const Outputs inputs = out.inputs;
    out.run = [torch, inputs] { return torch->Run(inputs).status(); };
    TESSEL_ASSIGN_OR_RETURN(out.outputs, torch->Run(inputs));
    return out;
  }
  if (side != "tessel") return UnknownSide("network", side);
  TESSEL_ASSIGN_OR_RETURN(const target::Target target, TargetField(r));
  auto net = std::make_shared<CompiledNetwork>();
  const nlohmann::json logs = r.value("logs", nlohmann::json::array());
  if (!logs.is_array()) return Missing("logs");
  if (!logs.empty()) {
    TESSEL_ASSIGN_OR_RETURN(
        search::ApplyHistoryBest log,
        search::ApplyHistoryBest::FromLogs(logs.get<std::vector<std::string>>()));
    net->log.emplace(std::move(log));
  }
  const nlohmann::json compile = r.value("compile", nlohmann::json::object());
  driver::CompileOptions options;
  options.optimize_graph = compile.value("optimize_graph", true);
  options.fuse = compile.value("fuse", true);
  options.alter_layout = compile.value("alter_layout", true);
  options.run_threads = threads;
  const Clock::time_point start = Clock::now();
  TESSEL_ASSIGN_OR_RETURN(net->model,
                          driver::Compile(g, target, net->log ? &*net->log : nullptr, options));
  out.info["compile_seconds"] = std::chrono::duration<double>(Clock::now() - start).count();
  out.info["steps"] = net->model.steps.size();
  out.info["fused_steps"] = net->model.NumFusedSteps();
  out.info["kernels"] = net->model.kernels.size();
  out.info["tuned_kernels"] = net->model.NumTuned();
  out.info["warnings"] = net->model.warnings;
  TESSEL_ASSIGN_OR_RETURN(runtime::GraphExecutor executor,
                          driver::MakeExecutor(net->model, {.threads = threads}));
  net->executor.emplace(std::move(executor));
  net->inputs = out.inputs;
  out.run = [net] { return net->executor->Run(net->inputs).status(); };
  TESSEL_ASSIGN_OR_RETURN(out.outputs, net->executor->Run(net->inputs));
  return out;
}

absl::StatusOr<Outputs> ReadInputs(const nlohmann::json& r) {
  if (!r.contains("inputs") || !r["inputs"].is_array()) return Missing("inputs");
  Outputs inputs;
  for (const nlohmann::json& path : r["inputs"]) {
    if (!path.is_string()) return Missing("inputs");
    TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, runtime::LoadNpy(path.get<std::string>()));
    inputs.push_back(std::move(a));
  }
  return inputs;
}

absl::StatusOr<TimedSide> Conv2dSide(const nlohmann::json& r, const std::string& side,
                                     int threads) {
  if (!r.contains("args") || !r["args"].is_object()) return Missing("args");
  const ops::OpArgs args = r["args"];
  TimedSide out;
  if (side == "onednn") {
    TESSEL_ASSIGN_OR_RETURN(out.inputs, ReadInputs(r));
    if (out.inputs.size() != 2) return Missing("inputs");
    baselines::SetDnnlThreads(threads);
    TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<baselines::DnnlConv2d> made,
                            baselines::DnnlConv2d::Create(args));
    std::shared_ptr<baselines::DnnlConv2d> dnnl = std::move(made);
    TESSEL_RETURN_IF_ERROR(dnnl->SetInputs(out.inputs[0], out.inputs[1]));
    out.run = [dnnl] {
      dnnl->Run();
      return absl::OkStatus();
    };
    dnnl->Run();
    out.outputs = {dnnl->Output()};
    out.info["implementation"] = dnnl->implementation();
    out.info["formats"] = dnnl->formats();
    return out;
  }
  if (side != "tessel") return UnknownSide("conv2d", side);
  TESSEL_ASSIGN_OR_RETURN(const target::Target target, TargetField(r));
  TESSEL_ASSIGN_OR_RETURN(const std::string name, StringField(r, "template"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t seed, IntField(r, "seed", 0));
  runtime::ThreadPool::Global().SetNumThreads(threads);
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(target));
  facts.cores = threads;
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::FindTemplate(name));
  std::optional<search::Config> config;
  if (r.contains("config") && !r["config"].is_null()) {
    TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, t->space(args, facts));
    TESSEL_ASSIGN_OR_RETURN(config, space.FromJson(r["config"]));
  }
  TESSEL_ASSIGN_OR_RETURN(OpJob made, OpJob::Create(*t, args, facts, static_cast<uint32_t>(seed),
                                                    config ? &*config : nullptr));
  auto job = std::make_shared<OpJob>(std::move(made));
  out.inputs = job->logical_inputs();
  TESSEL_ASSIGN_OR_RETURN(out.outputs, job->LogicalOutputs());
  out.run = [job] {
    job->Run();
    return absl::OkStatus();
  };
  out.info["config"] = job->config_text();
  out.info["compile_seconds"] = job->compile_seconds();
  return out;
}

absl::StatusOr<TimedSide> GemmSide(const nlohmann::json& r, const std::string& side, int threads) {
  TESSEL_ASSIGN_OR_RETURN(const int64_t m, IntField(r, "m", 1));
  TESSEL_ASSIGN_OR_RETURN(const int64_t n, IntField(r, "n", 1));
  TESSEL_ASSIGN_OR_RETURN(const int64_t k, IntField(r, "k", 1));
  TESSEL_ASSIGN_OR_RETURN(GemmJob made, GemmJob::Create({m, n, k}, threads));
  auto job = std::make_shared<GemmJob>(std::move(made));
  TimedSide out;
  out.inputs = {job->a(), job->b()};
  if (side == "openblas") {
    out.run = [job] {
      job->RunOpenBlas();
      return absl::OkStatus();
    };
    job->RunOpenBlas();
    out.outputs = {job->c_blas()};
    return out;
  }
  if (side != "tessel") return UnknownSide("gemm", side);
  TESSEL_ASSIGN_OR_RETURN(ops::x86::GemmProgram program, job->HandSchedule());
  double compile_seconds = 0;
  TESSEL_ASSIGN_OR_RETURN(runtime::Function f, job->Compile(program, &compile_seconds));
  out.run = [job, f] {
    job->Run(f);
    return absl::OkStatus();
  };
  job->Run(f);
  out.outputs = {job->c()};
  out.info["compile_seconds"] = compile_seconds;
  return out;
}

}  // namespace

absl::StatusOr<TimedSide> MakeTimedSide(const nlohmann::json& r) {
  TESSEL_ASSIGN_OR_RETURN(const std::string kind, StringField(r, "kind"));
  TESSEL_ASSIGN_OR_RETURN(const std::string side, StringField(r, "side"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t threads, IntField(r, "threads", 1));
  if (kind == "network") return NetworkSide(r, side, static_cast<int>(threads));
  if (kind == "conv2d") return Conv2dSide(r, side, static_cast<int>(threads));
  if (kind == "gemm") return GemmSide(r, side, static_cast<int>(threads));
  return absl::InvalidArgumentError(
      absl::StrCat("unknown kind '", kind, "' (known: network, conv2d, gemm)"));
}

}  // namespace tessel::experiments
