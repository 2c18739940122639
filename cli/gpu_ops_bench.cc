#include "cli/gpu_ops_bench.h"

#include <absl/strings/str_format.h>

#include <optional>

#include "baselines/torch/reference.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/cuda/build_cuda.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/strategy.h"
#include "compiler/runtime/cuda/kernel_timer.h"
#include "compiler/runtime/device_api.h"
#include "compiler/runtime/device_probe.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_device.h"
#include "compiler/transforms/pipeline.h"
#include "experiments/bench_target.h"
#include "search/task/task.h"

namespace tessel::cli {
namespace {

struct GpuRow {
  std::string layer, template_name, config = "fallback";
  double gflop = 0;
  std::optional<runtime::cuda::KernelResources> resources;  // cuda only
  std::optional<double> ms;                                 // when run here
  std::string correct = "not run";
};

// The layer's program: the strategy's template with the fallback or the log's config.
absl::StatusOr<ops::OpProgram> LayerProgram(const workloads::Layer& layer,
                                            const target::TargetFacts& facts,
                                            const GpuBenchOptions& options, GpuRow& row) {
  const ops::OpArgs args = workloads::Conv2dArgs(layer);
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::SelectTemplate("conv2d", args, facts));
  row.template_name = t->name;
  TESSEL_ASSIGN_OR_RETURN(ops::Instantiated fallback, ops::InstantiateFallback(*t, args, facts));
  if (options.history == nullptr) return std::move(fallback.program);
  search::Task task{.template_name = t->name, .args = args, .target = facts.target};
  if (!options.history->Best(task.Key())) return std::move(fallback.program);
  row.config = "tuned";
  return t->instantiate(options.history->Query(task, fallback.space, fallback.config), args, facts);
}

// Built for the target; for cuda, the kernel's resources go to row.
absl::StatusOr<runtime::Module> BuildLayer(const ops::OpProgram& program,
                                           const target::TargetFacts& facts, GpuRow& row) {
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func,
                          transforms::Lower(program.schedule, program.args, "op"));
  if (facts.target.kind() != "cuda") return codegen::Build({func}, facts.target);
  TESSEL_ASSIGN_OR_RETURN(codegen::cuda::CudaBuild built,
                          codegen::cuda::BuildCuda({func}, facts.target, *facts.gpu));
  row.resources = built.data.kernels.at(0).resources;
  return built.module;
}

// Checks the layer against libtorch on the device, then times the kernel alone.
absl::Status RunLayer(const workloads::Layer& layer, const ops::OpProgram& program,
                      const runtime::Module& module, const target::Target& target, int repeat,
                      GpuRow& row) {
  const DLDevice device = target::TargetDevice(target);
  TESSEL_ASSIGN_OR_RETURN(runtime::Function f, module.GetFunction("op"));
  const std::vector<runtime::NDArray> inputs = ops::RandomInputs(program.logical_inputs, 1);
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> got,
                          ops::RunLogical(program, f, inputs, device));
  TESSEL_ASSIGN_OR_RETURN(
      std::vector<runtime::NDArray> want,
      baselines::TorchReference("conv2d", workloads::Conv2dArgs(layer), inputs));
  const bool winograd = row.template_name.find("winograd") != std::string::npos;
  const absl::Status check = ops::CompareOutputs(
      got, want, winograd ? ops::Tolerance{1e-2, 1e-2} : ops::Tolerance{2e-3, 2e-3});
  row.correct = check.ok() ? "yes" : std::string("NO: ") + std::string(check.message());

  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> prepared,
                          ops::PrepareInputs(program, inputs));
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> on_device,
                          ops::CopyArrays(prepared, device));
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> outputs,
                          ops::CopyArrays(ops::AllocateOutputs(program), device));
  const std::vector<runtime::Arg> args = ops::CallArguments(on_device, outputs);
  runtime::TimerOptions timer{.repeat = repeat, .min_repeat_ms = 20, .warmup = 2};
  std::vector<double> seconds;
  if (target.kind() == "cuda") {
    // Replayed from a CUDA graph where the driver can, as the GPU machine's cuda_runner times.
    TESSEL_ASSIGN_OR_RETURN(runtime::cuda::KernelTiming timed,
                            runtime::cuda::TimeKernelReplayed([&] { return f(args); }, timer));
    seconds = std::move(timed.seconds);
  } else {
    TESSEL_ASSIGN_OR_RETURN(runtime::DeviceAPI * api, runtime::GetDeviceAPI(device));
    absl::Status failed;
    TESSEL_ASSIGN_OR_RETURN(seconds, runtime::TimeRepeats(
                                         [&] {
                                           absl::Status s = f(args);
                                           if (s.ok()) s = api->Synchronize(device);
                                           if (!s.ok() && failed.ok()) failed = s;
                                         },
                                         timer));
    TESSEL_RETURN_IF_ERROR(failed);
  }
  row.ms = runtime::Median(seconds) * 1e3;
  return absl::OkStatus();
}

absl::Status Prefixed(const absl::Status& s, const std::string& where) {
  return absl::Status(s.code(), absl::StrCat(where, s.message()));
}

std::string ResourceColumns(const GpuRow& row) {
  if (!row.resources) return "";
  const runtime::cuda::KernelResources& r = *row.resources;
  return absl::StrFormat("%5d %9d %9d %9d ", r.registers, r.shared_bytes, r.spill_store_bytes,
                         r.spill_load_bytes);
}

}  // namespace

absl::Status BenchGpuOps(const target::Target& target, const std::vector<workloads::Layer>& layers,
                         const GpuBenchOptions& options, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(target));
  if (!facts.gpu) {
    return absl::InvalidArgumentError(
        absl::StrCat("--target '", target.ToString(), "' is not a GPU target"));
  }
  const bool cuda = target.kind() == "cuda";
  const absl::Status device = runtime::ProbeDevice(target::TargetDevice(target));
  out << "target: " << target.ToString() << " (" << facts.gpu->ToString() << ")\n";
  out << "device: " << experiments::DeviceNote(target) << "\n";
  out << "suite: table2 (the paper's Table 2), batch 1, float32; ours: the GPU strategy's template "
      << (options.history ? "with the best config of " + options.log + " where it has one"
                          : std::string("with its untuned fallback config"))
      << "\n\n";
  out << absl::StrFormat(
      "%-5s %7s %-28s %-8s %s%9s %8s  %s\n", "layer", "GFLOP", "template", "config",
      cuda ? absl::StrFormat("%5s %9s %9s %9s ", "regs", "shared B", "spill st", "spill ld")
           : std::string(),
      "ms", "GFLOPS", "correct");
  int built = 0, correct = 0;
  for (const workloads::Layer& layer : layers) {
    GpuRow row;
    row.layer = layer.name;
    row.gflop = workloads::Gflop(layer);
    const std::string where = absl::StrCat(layer.name, ": ");
    absl::StatusOr<ops::OpProgram> program = LayerProgram(layer, facts, options, row);
    if (!program.ok()) return Prefixed(program.status(), where);
    absl::StatusOr<runtime::Module> module = BuildLayer(*program, facts, row);
    if (!module.ok()) return Prefixed(module.status(), where);
    ++built;
    if (device.ok()) {
      absl::Status ran = RunLayer(layer, *program, *module, target, options.repeat, row);
      if (!ran.ok()) return Prefixed(ran, where);
      correct += row.correct == "yes";
    }
    out << absl::StrFormat(
        "%-5s %7.3f %-28s %-8s %s%9s %8s  %s\n", row.layer, row.gflop, row.template_name,
        row.config, ResourceColumns(row), row.ms ? absl::StrFormat("%.3f", *row.ms) : "-",
        row.ms ? absl::StrFormat("%.1f", row.gflop / *row.ms * 1e3) : "-", row.correct);
    out.flush();
  }
  out << "\n";
  if (!device.ok()) {
    out << absl::StrFormat("%d of %d layers built%s; none run or timed: %s\n", built, layers.size(),
                           cuda ? " (NVRTC, then ptxas for " + codegen::cuda::ArchOf(target) +
                                      "; resources checked against the GPU's limits)"
                                : "",
                           device.message());
    return absl::OkStatus();
  }
  out << absl::StrFormat("%d of %d layers built, run and correct (median of %d repeats each)\n",
                         correct, layers.size(), options.repeat);
  if (correct != static_cast<int>(layers.size())) {
    return absl::InternalError("some layers computed wrong results (see the 'correct' column)");
  }
  return absl::OkStatus();
}

}  // namespace tessel::cli
