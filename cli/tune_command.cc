#include "cli/tune_command.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <unistd.h>

#include <iostream>
#include <optional>
#include <set>

#include "cli/command_args.h"
#include "cli/model_source.h"
#include "cli/target_flag.h"
#include "cli/tune_gpu_batches.h"
#include "compiler/driver/model_tasks.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "search/measure/measure.h"
#include "search/measure/torch_reference.h"
#include "search/measure/vdla_measure.h"
#include "search/tuner/progress_line.h"
#include "search/tuner/tune_tasks.h"
#include "search/tuner/tuner.h"
#include "workloads/layer_task.h"
#include "workloads/table2.h"

namespace tessel::cli {
namespace {

const ArgSpec& TuneSpec() {
  static const ArgSpec spec{
      .flags =
          {{"workload",
            "a network (tessel list: its every task) or a Table 2 layer (C1-C12, D1-D9: its one "
            "conv2d)"},
           {"batch", "with --workload NETWORK: the batch size (default 1)"},
           {"dim", "NAME=V: a value for a symbolic dimension of the ONNX model (repeatable)"},
           {"tasks", "a model's tasks to tune, by --list-tasks index: I,J,... (default all)"},
           {"template",
            "the template to tune (default for a layer: the x86 strategy's choice; not for a "
            "model)"},
           {"args",
            "the operator's arguments as JSON (with --template; compiler/ops/OPERATORS.md)"},
           {"target",
            "an llvm target of this host (default llvm: -mcpu=native -fast-math-contract "
            "added), cuda -arch=sm_NN with --bundle, or vdla (one operator, measured in simulated "
            "cycles)"},
           {"tuner", "xgb | treernn | random | ga | grid (default xgb)"},
           {"model", "a registered cost model (instead of --tuner; with --explorer, default sa)"},
           {"explorer",
            "a registered explorer (instead of --tuner; black-box ones without --model)"},
           {"trials", "measured configs per task, resumed ones included (default 200)"},
           {"log", "the JSON-lines log to append to; an existing one is resumed"},
           {"seed", "search seed (default 0)"},
           {"threads", "threads of the measured programs (default 1)"},
           {"early-stopping", "stop a task after N trials without improvement (default 0: never)"},
           {"transfer-from", "logs of other shapes of the templates, comma-separated"},
           {"features", "itervar | knob | curve (default itervar)"},
           {"repeat", "timed repeats per candidate (default 3)"},
           {"min-repeat-ms", "minimum length of one repeat (default 50)"},
           {"timeout",
            "seconds per build and per run of a candidate (default 10; 60 for cuda's builds)"},
           {"bundle",
            "with --target cuda: the folder of the batch measured on a GPU machine (README: "
            "tuning for a GPU elsewhere)"},
           {"bundle-size", "with --bundle: candidates per batch (default 64)"}},
      .switches = {{"list-tasks", "print a model's tasks and exit without tuning"},
                   {"no-optimize-graph",
                    "the tasks of the model without graph optimizations (as `tessel compile` "
                    "would build it with them off)"},
                   {"no-transfer",
                    "a model's later tasks of a template do not start from the earlier ones' "
                    "records"}},
      .aliases = {}};
  return spec;
}

// --tuner NAME as a cost model and an explorer.
absl::Status SetTuner(const std::string& name, search::TunerOptions& options) {
  if (name == "xgb" || name == "treernn") {
    options.cost_model = name;
    options.explorer = "sa";
  } else if (name == "random" || name == "ga" || name == "grid") {
    options.cost_model = "";
    options.explorer = name;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--tuner: '", name, "' is not one of xgb, treernn, random, ga, grid"));
  }
  return absl::OkStatus();
}

// How to search and measure, from the flags both forms share.
struct Tuning {
  search::TunerOptions options;
  search::MeasureOptions measure;
};

absl::StatusOr<Tuning> ReadTuning(const CommandArgs& args) {
  Tuning t;
  search::TunerOptions& options = t.options;
  TESSEL_ASSIGN_OR_RETURN(const std::string tuner, args.Value("tuner", ""));
  TESSEL_RETURN_IF_ERROR(SetTuner(tuner.empty() ? "xgb" : tuner, options));
  TESSEL_ASSIGN_OR_RETURN(const std::string model, args.Value("model", ""));
  TESSEL_ASSIGN_OR_RETURN(const std::string explorer, args.Value("explorer", ""));
  if (!model.empty() || !explorer.empty()) {
    if (!tuner.empty())
      return absl::InvalidArgumentError("give --tuner, or --model / --explorer, not both");
    options.cost_model = model;
    options.explorer = explorer.empty() ? "sa" : explorer;
  }
  TESSEL_ASSIGN_OR_RETURN(options.features, args.Value("features", "itervar"));
  TESSEL_ASSIGN_OR_RETURN(options.log_path, args.Value("log", ""));
  if (options.log_path.empty()) return absl::InvalidArgumentError("--log LOG is required");
  TESSEL_ASSIGN_OR_RETURN(int64_t trials, args.Int("trials", 200));
  TESSEL_ASSIGN_OR_RETURN(int64_t seed, args.Int("seed", 0));
  TESSEL_ASSIGN_OR_RETURN(int64_t threads, args.Int("threads", 1));
  TESSEL_ASSIGN_OR_RETURN(int64_t early, args.Int("early-stopping", 0));
  TESSEL_ASSIGN_OR_RETURN(int64_t repeat, args.Int("repeat", 3));
  TESSEL_ASSIGN_OR_RETURN(int64_t min_repeat_ms, args.Int("min-repeat-ms", 50));
  TESSEL_ASSIGN_OR_RETURN(int64_t timeout, args.Int("timeout", 10));
  if (trials < 0)
    return absl::InvalidArgumentError(absl::StrCat("--trials must be >= 0, got ", trials));
  if (seed < 0) return absl::InvalidArgumentError(absl::StrCat("--seed must be >= 0, got ", seed));
  if (threads < 1)
    return absl::InvalidArgumentError(absl::StrCat("--threads must be >= 1, got ", threads));
  if (timeout < 1)
    return absl::InvalidArgumentError(absl::StrCat("--timeout must be >= 1, got ", timeout));
  options.trials = static_cast<int>(trials);
  options.seed = static_cast<uint64_t>(seed);
  options.early_stopping = static_cast<int>(early);
  options.measure_fallback = true;  // what the user compiles with is never worse than untuned
  TESSEL_ASSIGN_OR_RETURN(const std::string transfer, args.Value("transfer-from", ""));
  for (absl::string_view path : absl::StrSplit(transfer, ',', absl::SkipEmpty()))
    options.transfer_from.emplace_back(path);

  search::MeasureOptions& measure = t.measure;
  measure.build.workers = 2;
  measure.build.timeout_seconds = static_cast<double>(timeout);
  measure.run.timeout_seconds = static_cast<double>(timeout);
  measure.run.repeat = static_cast<int>(repeat);
  measure.run.min_repeat_ms = static_cast<double>(min_repeat_ms);
  measure.run.threads = static_cast<int>(threads);
  measure.reference = search::TorchReferenceFn();
  TESSEL_ASSIGN_OR_RETURN(measure.worker_path, search::DefaultWorkerPath());
  options.batch_size = measure.build.workers;
  return t;
}

// --bundle and --bundle-size, which go with a cuda target (and then the builds' timeout is 60 s
// unless --timeout says otherwise: NVRTC and ptxas take their time).
absl::StatusOr<std::optional<GpuBatchTuning>> ReadGpuBatchTuning(const CommandArgs& args,
                                                                 const target::Target& target,
                                                                 Tuning& tuning) {
  TESSEL_ASSIGN_OR_RETURN(const std::string dir, args.Value("bundle", ""));
  TESSEL_ASSIGN_OR_RETURN(const int64_t size, args.Int("bundle-size", 64));
  if (target.kind() != "cuda") {
    if (!dir.empty() || !args.Values("bundle-size").empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--bundle goes with a cuda target (measured on a GPU machine), not '",
                       target.ToString(), "'"));
    }
    return std::nullopt;
  }
  if (dir.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--target ", target.ToString(),
        ": this machine cannot run CUDA kernels; tune through "
        "batches measured on a GPU machine: add --bundle DIR (README: tuning for a GPU "
        "elsewhere)"));
  }
  if (size < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--bundle-size must be >= 1, got ", size));
  }
  if (args.Values("timeout").empty()) tuning.measure.build.timeout_seconds = 60;
  GpuBatchTuning out{
      .dir = dir, .bundle_size = static_cast<int>(size), .transfer = true, .batch = {}};
  out.batch.timer = {.number = 1,
                     .repeat = tuning.measure.run.repeat,
                     .min_repeat_ms = tuning.measure.run.min_repeat_ms,
                     .warmup = 1};
  out.batch.input_seed = tuning.measure.run.input_seed;
  out.batch.atol = tuning.measure.run.atol;
  out.batch.rtol = tuning.measure.run.rtol;
  return out;
}

// One operator: a Table 2 layer, or --template with --args.
absl::StatusOr<search::Task> ReadOperatorTask(const CommandArgs& args,
                                              const target::TargetFacts& facts) {
  for (const char* flag : {"batch", "dim", "tasks"}) {
    if (!args.Values(flag).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, " goes with a model (MODEL.onnx or --workload NETWORK)"));
    }
  }
  for (const char* flag : {"list-tasks", "no-optimize-graph", "no-transfer"}) {
    if (args.Switch(flag)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, " goes with a model (MODEL.onnx or --workload NETWORK)"));
    }
  }
  TESSEL_ASSIGN_OR_RETURN(const std::string workload, args.Value("workload", ""));
  TESSEL_ASSIGN_OR_RETURN(const std::string template_name, args.Value("template", ""));
  TESSEL_ASSIGN_OR_RETURN(const std::string json, args.Value("args", ""));
  if (!workload.empty()) {
    if (!json.empty())
      return absl::InvalidArgumentError("--args goes with --template, not --workload");
    absl::StatusOr<search::Task> task = workloads::LayerTask(workload, facts, template_name);
    if (!task.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("--workload ", workload, ": ", task.status().message()));
    return task;
  }
  if (template_name.empty() || json.empty()) {
    return absl::InvalidArgumentError(
        "give a model (MODEL.onnx or --workload NETWORK), --workload LAYER, or --template T with "
        "--args JSON");
  }
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object())
    return absl::InvalidArgumentError(absl::StrCat("--args: not a JSON object: ", json));
  search::Task task{.template_name = template_name, .args = parsed, .target = facts.target};
  TESSEL_RETURN_IF_ERROR(search::Space(task, facts).status());
  return task;
}

absl::Status TuneOperator(const CommandArgs& args, const target::Target& target,
                          std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(const target::TargetFacts facts, target::DescribeTarget(target));
  TESSEL_ASSIGN_OR_RETURN(search::Task task, ReadOperatorTask(args, facts));
  TESSEL_ASSIGN_OR_RETURN(Tuning tuning, ReadTuning(args));
  const search::TunerOptions& options = tuning.options;
  TESSEL_ASSIGN_OR_RETURN(std::optional<GpuBatchTuning> batches,
                          ReadGpuBatchTuning(args, target, tuning));
  // VDLA's candidates run on its cycle-accurate simulator in this process (vdla_measure.h); the
  // others in measure workers.
  std::optional<search::Measurer> measurer;
  search::MeasureFn measure;
  if (target.kind() == "vdla") {
    measure = search::VdlaMeasureFn({.threads = tuning.measure.build.workers,
                                     .input_seed = tuning.measure.run.input_seed,
                                     .reference = tuning.measure.reference});
  } else {
    TESSEL_ASSIGN_OR_RETURN(measurer, search::Measurer::Create(tuning.measure));
    measure = [&measurer](const search::Task& t, const std::vector<search::Config>& configs) {
      return measurer->Measure(t, configs);
    };
  }
  if (batches) {
    return TuneOnGpuBatches({{.task = task, .label = task.template_name}}, options, *measurer,
                            tuning.measure.reference, *batches, out);
  }

  search::ProgressLine progress(
      std::cerr, isatty(STDERR_FILENO),
      absl::StrCat(task.template_name, " ", options.cost_model,
                   options.cost_model.empty() ? "" : "+", options.explorer));
  TESSEL_ASSIGN_OR_RETURN(search::TuneResult result,
                          search::Tune(task, options, measure,
                                       [&](const search::TuneProgress& p) { progress.Update(p); }));
  progress.Finish();
  out << absl::StrFormat("task     %s\n", task.Key());
  out << absl::StrFormat("trials   %d (%d resumed from %s, %d failed); stopped: %s\n",
                         result.trials, result.resumed, options.log_path, result.errors,
                         result.stop_reason);
  out << "time     " << result.times.ToString() << "\n";
  if (result.best) {
    out << absl::StrFormat("best     %.4f ms, %.2f GFLOPS, config %d %s\n",
                           search::MeanCost(result.best->result) * 1e3, result.best_gflops,
                           result.best->config_index, result.best->config["knobs"].dump());
  } else {
    out << "best     none: every trial failed (see `tessel log summary " << options.log_path
        << "`)\n";
  }
  return absl::OkStatus();
}

// --tasks I,J,... as indices into n tasks, increasing (all when absent).
absl::StatusOr<std::vector<size_t>> ReadTaskIndices(const CommandArgs& args, size_t n) {
  TESSEL_ASSIGN_OR_RETURN(const std::string text, args.Value("tasks", ""));
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  if (args.Values("tasks").empty()) return all;
  std::set<size_t> chosen;
  for (absl::string_view word : absl::StrSplit(text, ',')) {
    int64_t index = -1;
    if (!absl::SimpleAtoi(word, &index) || index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tasks takes task indices like 0,3 (see --list-tasks), got '", text, "'"));
    }
    if (static_cast<size_t>(index) >= n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--tasks: there is no task ", index, ": the model has ", n,
          n == 0 ? " tasks" : absl::StrCat(" tasks (0-", n - 1, ")"), "; --list-tasks lists them"));
    }
    chosen.insert(static_cast<size_t>(index));
  }
  return std::vector<size_t>(chosen.begin(), chosen.end());
}

// "node 'conv1'" or "node 'layer1.0.conv1' and 3 more".
std::string NodesText(const std::vector<std::string>& nodes) {
  std::string text = absl::StrCat("node '", nodes.front(), "'");
  if (nodes.size() > 1) absl::StrAppend(&text, " and ", nodes.size() - 1, " more");
  return text;
}

// The model's name in messages: its file, or the network and batch.
absl::StatusOr<std::string> ModelName(const CommandArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(const std::string workload, args.Value("workload", ""));
  if (workload.empty()) return args.positional().front();
  TESSEL_ASSIGN_OR_RETURN(const int64_t batch, args.Int("batch", 1));
  return absl::StrCat(workload, " (batch ", batch, ")");
}

absl::Status TuneModel(const CommandArgs& args, const target::Target& target, std::ostream& out) {
  for (const char* flag : {"template", "args"}) {
    if (!args.Values(flag).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag,
                       " goes with one operator, not a model (a model's templates are chosen "
                       "as `tessel compile` chooses them)"));
    }
  }
  std::vector<std::string> layers;
  for (const workloads::Layer& layer : workloads::Table2()) layers.push_back(layer.name);
  TESSEL_ASSIGN_OR_RETURN(
      graph::Graph g,
      ReadModel(args, "tune",
                absl::StrCat("or a Table 2 layer (one conv2d): ", absl::StrJoin(layers, ", "))));
  TESSEL_ASSIGN_OR_RETURN(const std::string name, ModelName(args));
  const driver::CompileOptions compile{.optimize_graph = !args.Switch("no-optimize-graph")};
  TESSEL_ASSIGN_OR_RETURN(std::vector<driver::ModelTask> tasks,
                          driver::ExtractTasks(g, target, compile));
  TESSEL_ASSIGN_OR_RETURN(std::vector<size_t> chosen, ReadTaskIndices(args, tasks.size()));

  if (args.Switch("list-tasks")) {
    TESSEL_ASSIGN_OR_RETURN(const target::TargetFacts facts, target::DescribeTarget(target));
    out << absl::StrFormat("%d tasks of %s for %s%s\n", tasks.size(), name, target.ToString(),
                           compile.optimize_graph ? "" : " (graph not optimized)");
    for (size_t i : chosen) {
      const driver::ModelTask& t = tasks[i];
      TESSEL_ASSIGN_OR_RETURN(const search::ConfigSpace space, search::Space(t.task, facts));
      out << absl::StrFormat("%3d  %s %s  space %d\n     nodes: %s\n", i, t.task.template_name,
                             t.task.args.dump(), space.size(), absl::StrJoin(t.nodes, ", "));
    }
    return absl::OkStatus();
  }

  TESSEL_ASSIGN_OR_RETURN(Tuning tuning, ReadTuning(args));
  TESSEL_ASSIGN_OR_RETURN(std::optional<GpuBatchTuning> batches,
                          ReadGpuBatchTuning(args, target, tuning));
  std::vector<search::Task> list;
  std::vector<std::string> labels;
  const bool subset = chosen.size() != tasks.size();
  for (size_t i : chosen) {
    list.push_back(tasks[i].task);
    labels.push_back(absl::StrCat(subset ? absl::StrCat("#", i, " ") : "",
                                  tasks[i].task.template_name, " (", NodesText(tasks[i].nodes),
                                  ")"));
  }
  if (batches) {
    batches->transfer = !args.Switch("no-transfer");
    TESSEL_ASSIGN_OR_RETURN(search::Measurer measurer, search::Measurer::Create(tuning.measure));
    std::vector<GpuBatchTask> batch_tasks;
    for (size_t i = 0; i < list.size(); ++i) {
      batch_tasks.push_back({.task = list[i], .label = labels[i]});
    }
    return TuneOnGpuBatches(batch_tasks, tuning.options, measurer, tuning.measure.reference,
                            *batches, out);
  }
  TESSEL_ASSIGN_OR_RETURN(search::Measurer measurer, search::Measurer::Create(tuning.measure));
  search::TuneTasksOptions options{.tuner = tuning.options,
                                   .transfer = !args.Switch("no-transfer"),
                                   .terminal = &out == &std::cout && isatty(STDOUT_FILENO)};
  out << absl::StrFormat("tuning %s of %s for %s, %d trials each, into %s\n",
                         subset ? absl::StrFormat("%d of the %d tasks", list.size(), tasks.size())
                                : absl::StrFormat("the %d tasks", tasks.size()),
                         name, target.ToString(), options.tuner.trials, options.tuner.log_path);
  TESSEL_RETURN_IF_ERROR(search::TuneTasks(list, labels, options, measurer, &out).status());
  out << "`tessel compile` with --log " << options.tuner.log_path
      << " uses each task's best config\n";
  return absl::OkStatus();
}

// Whether the words name a model: an ONNX file, or a --workload that is no Table 2 layer.
absl::StatusOr<bool> NamesAModel(const CommandArgs& args) {
  if (!args.positional().empty()) return true;
  TESSEL_ASSIGN_OR_RETURN(const std::string workload, args.Value("workload", ""));
  return !workload.empty() && !workloads::FindLayer(workload).ok();
}

}  // namespace

absl::Status TuneCommand(std::span<const std::string> arg_words, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse("tune", arg_words, TuneSpec()));
  // Tuned as benchmarked: this host's CPU and fused multiply-adds (experiments/bench_target.h),
  // which is also how `tessel compile` resolves the target, so the tasks' keys are the ones it
  // looks up.
  TESSEL_ASSIGN_OR_RETURN(const std::string target_flag, args.Value("target", "llvm"));
  // A GPU target is taken as given, as `tessel compile` takes it.
  absl::StatusOr<target::Target> target = target::Target::Parse(target_flag);
  if (target.ok()) {
    if (target->kind() == "llvm") {
      target = HostTargetFlag(target_flag);
    } else if (target->kind() != "vdla") {
      target = target::ResolveModelTarget(*target);
    }
  }
  if (!target.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--target: ", target.status().message()));
  }
  const bool vdla = target->kind() == "vdla";
  if (target->kind() != "llvm" && target->kind() != "cuda" && !vdla && !args.Switch("list-tasks")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--target ", target->ToString(),
                     ": the tuner measures on this machine's CPU (llvm), on VDLA's simulator "
                     "(vdla) or, for cuda, on a GPU machine through --bundle; not on ",
                     target->kind(), " devices"));
  }
  TESSEL_ASSIGN_OR_RETURN(const bool model, NamesAModel(args));
  if (model && vdla) {
    return absl::InvalidArgumentError(
        "--target vdla tunes one operator (--workload LAYER, or --template with --args); a "
        "model's convolutions reach VDLA through its quantization and partitioning, which "
        "`tessel tune` does not do yet");
  }
  return model ? TuneModel(args, *target, out) : TuneOperator(args, *target, out);
}

}  // namespace tessel::cli
