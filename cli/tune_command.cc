#include "cli/tune_command.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_split.h>
#include <unistd.h>

#include <iostream>
#include <map>

#include "cli/bench_target.h"
#include "cli/flags.h"
#include "compiler/support/status_macros.h"
#include "search/measure/measure.h"
#include "search/measure/torch_reference.h"
#include "search/tuner/progress_line.h"
#include "search/tuner/tuner.h"
#include "workloads/layer_task.h"

namespace tessel::cli {
namespace {

const std::map<std::string, std::string>& TuneFlags() {
  static const std::map<std::string, std::string> flags = {
      {"workload", "a Table 2 layer (C1-C12, D1-D9)"},
      {"template", "the template to tune (default for --workload: the x86 strategy's choice)"},
      {"args", "the operator's arguments as JSON (with --template; compiler/ops/OPERATORS.md)"},
      {"target",
       "an llvm target of this host (default llvm: -mcpu=native -fast-math-contract added)"},
      {"tuner", "xgb | treernn | random | ga | grid (default xgb)"},
      {"model", "a registered cost model (instead of --tuner; with --explorer, default sa)"},
      {"explorer", "a registered explorer (instead of --tuner; black-box ones without --model)"},
      {"trials", "measured configs, resumed ones included (default 200)"},
      {"log", "the JSON-lines log to append to; an existing one is resumed"},
      {"seed", "search seed (default 0)"},
      {"threads", "threads of the measured programs (default 1)"},
      {"early-stopping", "stop after N trials without improvement (default 0: never)"},
      {"transfer-from", "logs of other shapes of the template, comma-separated"},
      {"features", "itervar | knob | curve (default itervar)"},
      {"repeat", "timed repeats per candidate (default 3)"},
      {"min-repeat-ms", "minimum length of one repeat (default 50)"},
      {"timeout", "seconds per build and per run of a candidate (default 10)"},
  };
  return flags;
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

absl::StatusOr<search::Task> ReadTask(const Flags& flags) {
  // Tuned as benchmarked: this host's CPU and fused multiply-adds (cli/bench_target.h), and the
  // task's key records the full target.
  TESSEL_ASSIGN_OR_RETURN(const std::string target,
                          HostBenchTarget(flags.String("target", "llvm")));
  const std::string workload = flags.String("workload", "");
  const std::string template_name = flags.String("template", "");
  const std::string args = flags.String("args", "");
  if (!workload.empty()) {
    if (!args.empty())
      return absl::InvalidArgumentError("--args goes with --template, not --workload");
    absl::StatusOr<search::Task> task = workloads::LayerTask(workload, target, template_name);
    if (!task.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("--workload ", workload, ": ", task.status().message()));
    return task;
  }
  if (template_name.empty() || args.empty())
    return absl::InvalidArgumentError("give --workload NAME, or --template T with --args JSON");
  nlohmann::json parsed = nlohmann::json::parse(args, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object())
    return absl::InvalidArgumentError(absl::StrCat("--args: not a JSON object: ", args));
  search::Task task{.template_name = template_name, .args = parsed, .target = target};
  TESSEL_ASSIGN_OR_RETURN(ops::TargetFacts facts, ops::DescribeTarget(target));
  TESSEL_RETURN_IF_ERROR(search::Space(task, facts).status());
  return task;
}

}  // namespace

absl::Status TuneCommand(std::span<const std::string> args, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(Flags flags, Flags::Parse("tune", args, TuneFlags()));
  TESSEL_ASSIGN_OR_RETURN(search::Task task, ReadTask(flags));
  search::TunerOptions options;
  TESSEL_RETURN_IF_ERROR(SetTuner(flags.String("tuner", "xgb"), options));
  const std::string model = flags.String("model", ""), explorer = flags.String("explorer", "");
  if (!model.empty() || !explorer.empty()) {
    if (!flags.String("tuner", "").empty())
      return absl::InvalidArgumentError("give --tuner, or --model / --explorer, not both");
    options.cost_model = model;
    options.explorer = explorer.empty() ? "sa" : explorer;
  }
  options.features = flags.String("features", "itervar");
  options.log_path = flags.String("log", "");
  if (options.log_path.empty()) return absl::InvalidArgumentError("--log LOG is required");
  TESSEL_ASSIGN_OR_RETURN(int64_t trials, flags.Int("trials", 200));
  TESSEL_ASSIGN_OR_RETURN(int64_t seed, flags.Int("seed", 0));
  TESSEL_ASSIGN_OR_RETURN(int64_t threads, flags.Int("threads", 1));
  TESSEL_ASSIGN_OR_RETURN(int64_t early, flags.Int("early-stopping", 0));
  TESSEL_ASSIGN_OR_RETURN(int64_t repeat, flags.Int("repeat", 3));
  TESSEL_ASSIGN_OR_RETURN(int64_t min_repeat_ms, flags.Int("min-repeat-ms", 50));
  TESSEL_ASSIGN_OR_RETURN(int64_t timeout, flags.Int("timeout", 10));
  if (seed < 0) return absl::InvalidArgumentError(absl::StrCat("--seed must be >= 0, got ", seed));
  if (threads < 1)
    return absl::InvalidArgumentError(absl::StrCat("--threads must be >= 1, got ", threads));
  if (timeout < 1)
    return absl::InvalidArgumentError(absl::StrCat("--timeout must be >= 1, got ", timeout));
  options.trials = static_cast<int>(trials);
  options.seed = static_cast<uint64_t>(seed);
  options.early_stopping = static_cast<int>(early);
  const std::string transfer = flags.String("transfer-from", "");
  if (!transfer.empty())
    for (absl::string_view path : absl::StrSplit(transfer, ','))
      options.transfer_from.emplace_back(path);

  search::MeasureOptions measure;
  measure.build.workers = 2;
  measure.build.timeout_seconds = static_cast<double>(timeout);
  measure.run.timeout_seconds = static_cast<double>(timeout);
  measure.run.repeat = static_cast<int>(repeat);
  measure.run.min_repeat_ms = static_cast<double>(min_repeat_ms);
  measure.run.threads = static_cast<int>(threads);
  measure.reference = search::TorchReferenceFn();
  TESSEL_ASSIGN_OR_RETURN(measure.worker_path, search::DefaultWorkerPath());
  options.batch_size = measure.build.workers;
  TESSEL_ASSIGN_OR_RETURN(search::Measurer measurer, search::Measurer::Create(measure));

  search::ProgressLine progress(
      std::cerr, isatty(STDERR_FILENO),
      absl::StrCat(task.template_name, " ", options.cost_model,
                   options.cost_model.empty() ? "" : "+", options.explorer));
  TESSEL_ASSIGN_OR_RETURN(search::TuneResult result,
                          search::Tune(task, options, measurer,
                                       [&](const search::TuneProgress& p) { progress.Update(p); }));
  progress.Finish();
  out << absl::StrFormat("task     %s\n", task.Key());
  out << absl::StrFormat("trials   %d (%d resumed from %s, %d failed); stopped: %s\n",
                         result.trials, result.resumed, options.log_path, result.errors,
                         result.stop_reason);
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

}  // namespace tessel::cli
