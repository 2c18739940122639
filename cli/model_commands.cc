#include "cli/model_commands.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "cli/command_args.h"
#include "cli/model_source.h"
#include "compiler/driver/compile_model.h"
#include "compiler/driver/quantize_model.h"
#include "compiler/ops/op_runner.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/npy.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"
#include "search/records/apply_history_best.h"
#include "workloads/networks/network.h"

namespace tessel::cli {
namespace {

const ArgSpec& CompileSpec() {
  static const ArgSpec spec{
      .flags = {{"workload", "a network to compile instead of an ONNX file (tessel list)"},
                {"batch", "with --workload: the batch size (default 1)"},
                {"target",
                 "an llvm target of this machine (default llvm: -mcpu=native "
                 "-fast-math-contract added, as tuning does), or a GPU: cuda [-arch=sm_NN], "
                 "opencl [-device=mali]"},
                {"log", "tuning logs, comma-separated: each task's best config"},
                {"dim", "NAME=V: a value for a symbolic dimension of the ONNX model"},
                {"offload",
                 "an accelerator (vdla [-config=FILE]): the convolutions it takes are quantized "
                 "to int8 and built for it, the rest runs on the CPU --target"},
                {"calibration",
                 "with --offload: seeded inputs the int8 scales are calibrated on (default 4)"},
                {"out", "the folder to write (-o)"}},
      .switches = {},
      .aliases = {{"o", "out"}}};
  return spec;
}

const ArgSpec& RunSpec() {
  static const ArgSpec spec{
      .flags = {{"input", "NAME=FILE.npy, once per model input"},
                {"output", "[NAME=]FILE.npy: write an output (NAME: which, when several)"},
                {"threads",
                 "threads of the kernels (default: the runtime's, "
                 "$TESSEL_NUM_THREADS or one per core)"},
                {"repeat", "with --bench: timed runs (default 20)"}},
      .switches = {{"bench", "time the model: 3 warm-up runs, then the median of --repeat runs"}},
      .aliases = {}};
  return spec;
}

std::string Megabytes(int64_t bytes) { return absl::StrFormat("%.1f MB", bytes / 1e6); }

// Up to 8 values of an output, for a look at it.
std::string FirstValues(const runtime::NDArray& a) {
  std::vector<std::string> values;
  const int64_t n = std::min<int64_t>(a.NumElements(), 8);
  const DLDataType t = a.dtype();
  for (int64_t i = 0; i < n; ++i) {
    if (t.code == kDLFloat && t.bits == 32) {
      values.push_back(absl::StrFormat("%.6g", a.data<float>()[i]));
    } else if (t.code == kDLInt && t.bits == 32) {
      values.push_back(absl::StrCat(a.data<int32_t>()[i]));
    } else if (t.code == kDLInt && t.bits == 64) {
      values.push_back(absl::StrCat(a.data<int64_t>()[i]));
    } else {
      return "";
    }
  }
  return absl::StrCat(" [", absl::StrJoin(values, ", "), a.NumElements() > n ? ", ...]" : "]");
}

// The --input flags as one array per model input.
absl::StatusOr<std::vector<runtime::NDArray>> ReadInputs(const CommandArgs& args,
                                                         const runtime::GraphExecutor& exec) {
  const std::vector<std::string> names = exec.InputNames();
  std::vector<runtime::NDArray> inputs(names.size());
  for (const std::string& word : args.Values("input")) {
    TESSEL_ASSIGN_OR_RETURN(auto pair, SplitPair("input", word, "NAME=FILE.npy"));
    absl::StatusOr<int> index = exec.FindInput(pair.first);
    if (!index.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input ", word, ": ", index.status().message()));
    }
    if (inputs[static_cast<size_t>(*index)].defined()) {
      return absl::InvalidArgumentError(absl::StrCat("--input: '", pair.first, "' given twice"));
    }
    TESSEL_ASSIGN_OR_RETURN(inputs[static_cast<size_t>(*index)], runtime::LoadNpy(pair.second));
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!inputs[i].defined()) missing.push_back(names[i]);
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "missing --input for ", absl::StrJoin(missing, ", "), " (give --input NAME=FILE.npy)"));
  }
  return inputs;
}

// Writes the outputs --output names; an error names the flag's word.
absl::Status WriteOutputs(const CommandArgs& args, const runtime::GraphExecutor& exec,
                          const std::vector<runtime::NDArray>& outputs, std::ostream& out) {
  const std::vector<std::string> names = exec.OutputNames();
  for (const std::string& word : args.Values("output")) {
    size_t index = 0;
    std::string file = word;
    const size_t eq = word.find('=');
    if (eq != std::string::npos) {
      const std::string name = word.substr(0, eq);
      file = word.substr(eq + 1);
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end() || file.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--output ", word, ": the model has no output '", name,
                         "' (its outputs: ", absl::StrJoin(names, ", "), ")"));
      }
      index = static_cast<size_t>(it - names.begin());
    } else if (names.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--output ", word, ": the model has ", names.size(), " outputs (",
                       absl::StrJoin(names, ", "), "); give --output NAME=FILE.npy"));
    }
    TESSEL_RETURN_IF_ERROR(runtime::SaveNpy(file, outputs[index]));
    out << "wrote output '" << names[index] << "' to " << file << "\n";
  }
  return absl::OkStatus();
}

// The target kinds --offload may name: devices that are not GPUs.
std::vector<std::string> AcceleratorKinds() {
  std::vector<std::string> kinds;
  for (const std::string& kind : target::Target::Kinds()) {
    absl::StatusOr<target::Target> t = target::Target::Parse(kind);
    if (t.ok() && t->is_device() && !t->HasKey("gpu")) kinds.push_back(kind);
  }
  return kinds;
}

// --offload and --calibration, checked against the main --target; nullopt without --offload.
struct OffloadFlags {
  target::Target accelerator;
  int64_t calibration = 0;
};

absl::StatusOr<std::optional<OffloadFlags>> ReadOffloadFlags(const CommandArgs& args,
                                                             const target::Target& main) {
  TESSEL_ASSIGN_OR_RETURN(const std::string text, args.Value("offload", ""));
  TESSEL_ASSIGN_OR_RETURN(const int64_t calibration, args.Int("calibration", 4));
  if (text.empty()) {
    if (!args.Values("calibration").empty()) {
      return absl::InvalidArgumentError("--calibration goes with --offload");
    }
    return std::nullopt;
  }
  absl::StatusOr<target::Target> accelerator = target::Target::Parse(text);
  if (!accelerator.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--offload: ", accelerator.status().message()));
  }
  const std::vector<std::string> kinds = AcceleratorKinds();
  if (std::find(kinds.begin(), kinds.end(), accelerator->kind()) == kinds.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--offload '", text,
                     "': not an accelerator (the accelerators: ", absl::StrJoin(kinds, ", "), ")"));
  }
  if (absl::Status s = target::DescribeTarget(*accelerator).status(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--offload: ", s.message()));
  }
  if (!main.HasKey("cpu")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--offload runs the rest of the model on a CPU: --target must be an llvm "
                     "target, not '",
                     main.ToString(), "'"));
  }
  if (calibration < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--calibration must be >= 1, got ", calibration));
  }
  return OffloadFlags{*std::move(accelerator), calibration};
}

// The inputs the int8 scales are calibrated on, seeds 1000 + k: a --workload network's own
// (NetworkInputs), else uniform in [-1, 1) for each float input of the ONNX model.
absl::StatusOr<std::vector<std::vector<runtime::NDArray>>> CalibrationInputs(
    const CommandArgs& args, const graph::Graph& g, int64_t count) {
  constexpr uint32_t kFirstSeed = 1000;
  TESSEL_ASSIGN_OR_RETURN(const std::string workload, args.Value("workload", ""));
  std::vector<ops::TensorSpec> specs;
  if (workload.empty()) {
    for (graph::ValueId id : g.inputs) {
      const graph::TensorType& t = g.type(id);
      if (t.dtype.code != kDLFloat || (t.dtype.bits != 32 && t.dtype.bits != 64)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--offload: calibration draws float inputs in [-1, 1), but input '",
                         g.value(id).name, "' is ", t.ToString()));
      }
      specs.push_back({.name = g.value(id).name, .shape = t.shape, .dtype = t.dtype});
    }
  }
  std::vector<std::vector<runtime::NDArray>> inputs;
  for (int64_t k = 0; k < count; ++k) {
    const uint32_t seed = kFirstSeed + static_cast<uint32_t>(k);
    if (workload.empty()) {
      inputs.push_back(ops::RandomInputs(specs, seed));
    } else {
      TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> in,
                              workloads::networks::NetworkInputs(workload, g, seed));
      inputs.push_back(std::move(in));
    }
  }
  return inputs;
}

// Layer steps (convolutions and dense layers) of the model that run on its offload.
int OffloadedLayers(const driver::CompiledModel& m) {
  const std::vector<bool> layer = driver::LayerSteps(m);
  int n = 0;
  for (size_t i = 0; i < m.steps.size(); ++i) {
    n += layer[i] && m.kernels[static_cast<size_t>(m.steps[i].kernel)].offloaded ? 1 : 0;
  }
  return n;
}

}  // namespace

absl::StatusOr<std::optional<search::ApplyHistoryBest>> ReadLogFlag(const std::string& logs) {
  if (logs.empty()) return std::nullopt;
  std::vector<std::string> paths = absl::StrSplit(logs, ',', absl::SkipEmpty());
  absl::StatusOr<search::ApplyHistoryBest> read = search::ApplyHistoryBest::FromLogs(paths);
  if (!read.ok()) {
    return absl::Status(read.status().code(), absl::StrCat("--log: ", read.status().message()));
  }
  return std::optional<search::ApplyHistoryBest>(*std::move(read));
}

absl::Status CompileCommand(std::span<const std::string> arg_words, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args,
                          CommandArgs::Parse("compile", arg_words, CompileSpec()));
  TESSEL_ASSIGN_OR_RETURN(std::string dir, args.Value("out", ""));
  if (dir.empty())
    return absl::InvalidArgumentError("-o DIR is required: where to write the model");
  TESSEL_ASSIGN_OR_RETURN(const std::string target_flag, args.Value("target", "llvm"));
  absl::StatusOr<target::Target> target = target::Target::Parse(target_flag);
  if (!target.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--target: ", target.status().message()));
  }
  TESSEL_ASSIGN_OR_RETURN(std::string logs, args.Value("log", ""));
  TESSEL_ASSIGN_OR_RETURN(const std::optional<OffloadFlags> offload,
                          ReadOffloadFlags(args, *target));
  TESSEL_ASSIGN_OR_RETURN(graph::Graph g, ReadModel(args, "compile"));

  TESSEL_ASSIGN_OR_RETURN(std::optional<search::ApplyHistoryBest> history, ReadLogFlag(logs));
  driver::CompileOptions options;
  std::optional<driver::QuantizedModel> quantized;
  if (offload) {
    TESSEL_ASSIGN_OR_RETURN(const std::vector<std::vector<runtime::NDArray>> calibration,
                            CalibrationInputs(args, g, offload->calibration));
    TESSEL_ASSIGN_OR_RETURN(quantized,
                            driver::QuantizeForAccelerator(g, offload->accelerator, calibration));
    g = quantized->graph;
    options.offload = offload->accelerator.ToString();
  }
  absl::StatusOr<driver::CompiledModel> model =
      driver::Compile(g, *target, history ? &*history : nullptr, options);
  if (!model.ok()) {
    // A bad --target is the command line's fault.
    if (absl::IsInvalidArgument(model.status()) &&
        absl::StrContains(model.status().message(), "target '")) {
      return absl::InvalidArgumentError(absl::StrCat("--target: ", model.status().message()));
    }
    return model.status();
  }
  TESSEL_RETURN_IF_ERROR(model->Save(dir));

  for (const std::string& w : model->warnings) out << "warning: " << w << "\n";
  int64_t parameter_bytes = 0;
  for (const runtime::NDArray& p : model->parameters) parameter_bytes += p.NumBytes();
  const driver::CompileStats& s = model->stats;
  out << absl::StrFormat("compiled %d nodes: %d kernels (%d tuned, %d fallback) for %s\n",
                         model->graph.nodes.size(), model->kernels.size(), model->NumTuned(),
                         model->kernels.size() - model->NumTuned(), model->facts.target.ToString());
  if (quantized) {
    out << absl::StrFormat(
        "quantized %d of %d layers (convolutions and dense) to int8, %d offloaded to %s (%d "
        "kernel%s)",
        quantized->quantized, quantized->layers, OffloadedLayers(*model),
        offload->accelerator.ToString(), model->NumOffloaded(),
        model->NumOffloaded() == 1 ? "" : "s");
    out << (quantized->kept_float.empty()
                ? "\n"
                : absl::StrCat("; float32 on the CPU: ", absl::StrJoin(quantized->kept_float, "; "),
                               "\n"));
  }
  out << absl::StrFormat("parameters %s (graph constants %s)\n", Megabytes(parameter_bytes),
                         Megabytes(model->graph.ConstantBytes()));
  out << absl::StrFormat(
      "compile time %.2f s: select %.2f s, instantiate and lower %.2f s (%d threads), build "
      "%.2f s, parameters %.2f s\n",
      s.total, s.select, s.instantiate, s.threads, s.build, s.parameters);
  out << "wrote " << dir << "\n";
  return absl::OkStatus();
}

absl::Status RunCommand(std::span<const std::string> arg_words, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse("run", arg_words, RunSpec()));
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError(
        args.positional().empty()
            ? "give the compiled model's folder: tessel run DIR --input NAME=FILE.npy"
            : absl::StrCat("'run' takes one folder, got '", args.positional()[1], "' too"));
  }
  TESSEL_ASSIGN_OR_RETURN(int64_t threads, args.Int("threads", 0));
  TESSEL_ASSIGN_OR_RETURN(int64_t repeat, args.Int("repeat", 20));
  if (!args.Values("threads").empty() && threads < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--threads must be >= 1, got ", threads));
  }
  if (repeat < 1)
    return absl::InvalidArgumentError(absl::StrCat("--repeat must be >= 1, got ", repeat));
  const std::string dir = args.positional().front();
  TESSEL_ASSIGN_OR_RETURN(driver::CompiledModel model, driver::CompiledModel::Load(dir));
  TESSEL_ASSIGN_OR_RETURN(runtime::GraphExecutor exec,
                          driver::MakeExecutor(model, {.threads = static_cast<int>(threads)}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> inputs, ReadInputs(args, exec));
  absl::StatusOr<std::vector<runtime::NDArray>> outputs = exec.Run(inputs);
  if (!outputs.ok()) return outputs.status();
  const std::vector<std::string> names = exec.OutputNames();
  for (size_t i = 0; i < outputs->size(); ++i) {
    const runtime::NDArray& o = (*outputs)[i];
    out << "output '" << names[i] << "' " << runtime::DLTypeToString(o.dtype()) << "["
        << absl::StrJoin(o.shape(), ", ") << "]" << FirstValues(o) << "\n";
  }
  TESSEL_RETURN_IF_ERROR(WriteOutputs(args, exec, *outputs, out));
  if (!args.Switch("bench")) return absl::OkStatus();

  absl::Status failed;
  auto once = [&] {
    absl::StatusOr<std::vector<runtime::NDArray>> r = exec.Run(inputs);
    if (!r.ok() && failed.ok()) failed = r.status();
  };
  TESSEL_ASSIGN_OR_RETURN(
      std::vector<double> seconds,
      runtime::TimeRepeats(
          once,
          {.number = 1, .repeat = static_cast<int>(repeat), .min_repeat_ms = 0, .warmup = 3}));
  TESSEL_RETURN_IF_ERROR(failed);
  const auto [lo, hi] = std::minmax_element(seconds.begin(), seconds.end());
  out << absl::StrFormat(
      "median %.3f ms over %d runs after 3 warm-up runs (min %.3f ms, max %.3f ms), %d threads\n",
      runtime::Median(seconds) * 1e3, seconds.size(), *lo * 1e3, *hi * 1e3,
      runtime::ThreadPool::Global().num_threads());
  return absl::OkStatus();
}

}  // namespace tessel::cli
