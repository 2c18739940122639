#include "experiments/models_runner.h"

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>
#include <absl/time/clock.h>
#include <absl/time/time.h>

#include <map>
#include <memory>
#include <optional>

#include "compiler/driver/model_tasks.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/atomic_file.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "compiler/target/target_facts.h"
#include "experiments/bench_target.h"
#include "experiments/build_info.h"
#include "experiments/compare_models.h"
#include "experiments/config_fields.h"
#include "experiments/models_report.h"
#include "experiments/plot.h"
#include "experiments/results_dir.h"
#include "search/explorers/explorer.h"
#include "search/measure/measure.h"
#include "search/measure/torch_reference.h"
#include "search/records/apply_history_best.h"
#include "search/task/task.h"
#include "search/tuner/tune_tasks.h"
#include "workloads/networks/network.h"

namespace tessel::experiments {
namespace {

std::string Now() {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::Now(), absl::UTCTimeZone());
}

driver::CompileOptions CompileOptionsOf(const VariantSpec& v) {
  driver::CompileOptions o;
  o.optimize_graph = v.optimize_graph;
  o.fuse = v.fuse;
  return o;
}

// Winograd's transforms round more than a direct sum (as in the tuning kind and `tessel bench
// ops`): its candidates are checked with a looser tolerance unless the config sets one.
bool IsWinograd(const search::Task& task) {
  return task.template_name.find("winograd") != std::string::npos;
}

class ModelsExperiment {
 public:
  ModelsExperiment(const ModelsConfig& config, const RunnerOptions& options)
      : config_(config),
        options_(options),
        note_(options.progress != nullptr ? options.progress->rdbuf() : nullptr) {}

  absl::StatusOr<ModelsOutcome> Run();

 private:
  absl::Status Prepare();
  absl::StatusOr<std::vector<driver::ModelTask>> TasksOf(const std::string& network);
  absl::Status CheckTuningStrategy(const search::Task& first);
  absl::StatusOr<search::Measurer*> MeasurerFor(const search::Task& task);
  absl::Status Tune(const std::string& network);
  absl::Status Time(size_t index);
  absl::Status WriteOutputs(bool plot);
  std::string LogOf(const std::string& network) const {
    return absl::StrCat("logs/", network, ".jsonl");
  }

  const ModelsConfig& config_;
  const RunnerOptions& options_;
  std::ostream note_;  // the progress stream, or nothing
  target::Target target_;
  std::string worker_path_;
  std::map<bool, search::Measurer> measurers_;  // by IsWinograd
  bool strategy_checked_ = false;
  ModelsReportInput report_;
  ModelsOutcome outcome_;
};

absl::Status ModelsExperiment::Prepare() {
  absl::StatusOr<target::Target> target = target::ResolveModelTarget(config_.target);
  if (!target.ok()) {
    return fields::ConfigError(config_.source_path, 0, "target",
                               std::string(target.status().message()));
  }
  if (target->kind() != "llvm" && config_.tuning) {
    return fields::ConfigError(
        config_.source_path, 0, "tuning",
        absl::StrCat("the tuner measures on this machine's CPU only, not on target '",
                     target->ToString(),
                     "' (tune a cuda target's tasks with `tessel tune "
                     "--target cuda --bundle`); leave `tuning` out"));
  }
  target_ = *target;
  runtime::ThreadPool::Global().SetNumThreads(config_.threads);
  outcome_.out_dir =
      options_.out_dir.empty() ? DefaultResultsDir(config_.name, target_) : options_.out_dir;
  TESSEL_RETURN_IF_ERROR(support::MakeDirectories(outcome_.out_dir));
  report_.config = &config_;
  report_.machine =
      absl::StrCat(experiments::BenchMetadata(target_, config_.threads), "build: commit ",
                   experiments::kGitCommit, " (", experiments::kGitState, ")\n");
  return absl::OkStatus();
}

// The tasks the Tessel variants look up, in order of first use, once each.
absl::StatusOr<std::vector<driver::ModelTask>> ModelsExperiment::TasksOf(
    const std::string& network) {
  TESSEL_ASSIGN_OR_RETURN(graph::Graph g, workloads::networks::BuildNetwork(
                                              network, {.batch = config_.batch, .seed = 0}));
  std::vector<driver::ModelTask> tasks;
  absl::flat_hash_set<std::string> seen;
  for (const VariantSpec& v : config_.variants) {
    if (v.libtorch) continue;
    driver::CompileOptions compile = CompileOptionsOf(v);
    compile.run_threads = config_.threads;  // as the timing workers compile it
    TESSEL_ASSIGN_OR_RETURN(std::vector<driver::ModelTask> of_variant,
                            driver::ExtractTasks(g, target_, compile));
    for (driver::ModelTask& t : of_variant) {
      if (seen.insert(t.task.Key()).second) tasks.push_back(std::move(t));
    }
  }
  return tasks;
}

// The explorer takes its parameters and fits the cost model (or its absence), checked on the
// first task before anything is measured.
absl::Status ModelsExperiment::CheckTuningStrategy(const search::Task& first) {
  const ModelsTuningSpec& t = *config_.tuning;
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(first.target));
  facts.cores = config_.threads;
  TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, search::Space(first, facts));
  absl::StatusOr<std::unique_ptr<search::Explorer>> explorer =
      search::MakeExplorer(t.explorer, space, {.seed = 0, .params = t.explorer_params});
  if (!explorer.ok()) {
    return fields::ConfigError(config_.source_path, t.line, "tuning.explorer_params",
                               std::string(explorer.status().message()));
  }
  if ((*explorer)->model_guided() && t.cost_model.empty()) {
    return fields::ConfigError(
        config_.source_path, t.line, "tuning.cost_model",
        absl::StrCat("missing: explorer '", t.explorer, "' is guided by a cost model"));
  }
  if (!(*explorer)->model_guided() && !t.cost_model.empty()) {
    return fields::ConfigError(
        config_.source_path, t.line, "tuning.cost_model",
        absl::StrCat("explorer '", t.explorer, "' is black-box and takes no cost model (use sa)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<search::Measurer*> ModelsExperiment::MeasurerFor(const search::Task& task) {
  const bool winograd = IsWinograd(task);
  if (auto it = measurers_.find(winograd); it != measurers_.end()) return &it->second;
  if (worker_path_.empty()) {
    if (!options_.worker_path.empty()) {
      worker_path_ = options_.worker_path;
    } else {
      TESSEL_ASSIGN_OR_RETURN(worker_path_, search::DefaultWorkerPath());
    }
  }
  const MeasureSpec& m = config_.tuning->measure;
  search::MeasureOptions o;
  o.build.workers = m.build_workers;
  o.build.timeout_seconds = m.timeout_seconds;
  o.run.number = m.number;
  o.run.repeat = m.repeat;
  o.run.min_repeat_ms = m.min_repeat_ms;
  o.run.flush_cache = m.flush_cache;
  o.run.threads = config_.threads;
  o.run.timeout_seconds = m.timeout_seconds;
  o.run.check_correctness = m.check_correctness;
  o.run.atol = m.atol >= 0 ? m.atol : (winograd ? 1e-2 : 1e-3);
  o.run.rtol = m.rtol >= 0 ? m.rtol : (winograd ? 1e-2 : 1e-3);
  o.worker_path = worker_path_;
  o.reference = search::TorchReferenceFn();
  TESSEL_ASSIGN_OR_RETURN(search::Measurer measurer, search::Measurer::Create(std::move(o)));
  return &measurers_.emplace(winograd, std::move(measurer)).first->second;
}

absl::Status ModelsExperiment::Tune(const std::string& network) {
  const ModelsTuningSpec& t = *config_.tuning;
  TESSEL_ASSIGN_OR_RETURN(std::vector<driver::ModelTask> model_tasks, TasksOf(network));
  NetworkTuning& record = report_.tuning.emplace_back();
  record.network = network;
  record.log = LogOf(network);
  record.tasks = static_cast<int>(model_tasks.size());
  if (model_tasks.empty()) {
    note_ << network << ": nothing to tune\n";
    return absl::OkStatus();
  }
  if (!strategy_checked_) {
    TESSEL_RETURN_IF_ERROR(CheckTuningStrategy(model_tasks.front().task));
    strategy_checked_ = true;
  }
  std::vector<search::Task> tasks;
  std::vector<std::string> labels;
  for (const driver::ModelTask& m : model_tasks) {
    tasks.push_back(m.task);
    labels.push_back(absl::StrCat(
        network, " ", m.task.template_name, " (node '", m.nodes.front(), "'",
        m.nodes.size() > 1 ? absl::StrCat(" and ", m.nodes.size() - 1, " more") : "", ")"));
  }
  const std::string log = absl::StrCat(outcome_.out_dir, "/", record.log);
  TESSEL_RETURN_IF_ERROR(support::MakeDirectories(absl::StrCat(outcome_.out_dir, "/logs")));

  search::TuneTasksOptions o;
  o.tuner.cost_model = t.cost_model;
  o.tuner.explorer = t.explorer;
  o.tuner.explorer_params = t.explorer_params;
  o.tuner.trials = t.trials;
  o.tuner.early_stopping = t.early_stopping;
  o.tuner.seed = t.seed;
  o.tuner.log_path = log;
  o.tuner.threads = t.model_threads;
  o.tuner.batch_size = t.measure.build_workers;
  o.tuner.measure_fallback = true;  // the networks compile with these logs
  o.transfer = t.transfer;
  o.terminal = options_.progress_in_place;
  // Candidates of a Winograd task are checked with its own tolerance: one measurer per class.
  const search::MeasureFn measure = [this](const search::Task& task,
                                           const std::vector<search::Config>& configs)
      -> absl::StatusOr<std::vector<search::MeasureResult>> {
    TESSEL_ASSIGN_OR_RETURN(search::Measurer * measurer, MeasurerFor(task));
    return measurer->Measure(task, configs);
  };
  note_ << "tuning " << network << ": " << tasks.size() << " tasks, " << t.trials
        << " trials each, into " << log << "\n";
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::TuneResult> results,
                          search::TuneTasks(tasks, labels, o, measure,
                                            options_.progress != nullptr ? &note_ : nullptr));
  for (const search::TuneResult& r : results) record.trials += r.trials;
  return absl::OkStatus();
}

absl::Status ModelsExperiment::Time(size_t index) {
  const std::string& network = config_.networks[index].name;
  std::vector<std::string> logs;
  if (config_.tuning) {
    const std::string log = absl::StrCat(outcome_.out_dir, "/", LogOf(network));
    // A network with nothing to tune has no log: its kernels use their fallbacks. A log that
    // does not read is an error here, before any worker starts.
    absl::StatusOr<search::ApplyHistoryBest> read = search::ApplyHistoryBest::FromLogs({log});
    if (read.ok()) {
      logs.push_back(log);
    } else if (!absl::IsNotFound(read.status())) {
      return read.status();
    }
  }
  CompareOptions o;
  o.target = target_;
  o.threads = config_.threads;
  o.batch = config_.batch;
  o.repeat = config_.repeat;
  o.warmup = config_.warmup;
  o.min_repeat_ms = config_.min_repeat_ms;
  o.logs = logs;
  o.tolerance = {.atol = config_.atol, .rtol = config_.rtol};
  std::vector<ModelVariant> variants;
  for (const VariantSpec& v : config_.variants) {
    variants.push_back({.name = v.name, .libtorch = v.libtorch, .compile = CompileOptionsOf(v)});
  }
  const std::string label =
      absl::StrFormat("[network %d/%d] %s", index + 1, config_.networks.size(), network);
  note_ << label << ": compiling, checking and timing " << variants.size() << " variants\n";
  TESSEL_ASSIGN_OR_RETURN(ModelComparison c, CompareModels(network, variants, o));
  std::vector<std::string> parts;
  for (const VariantTiming& v : c.variants) {
    parts.push_back(absl::StrFormat("%s %.4f ms (%.3fx)", v.name, runtime::Median(v.seconds) * 1e3,
                                    PairedSpeedup(c.variants.front(), v)));
  }
  note_ << label << ": " << absl::StrJoin(parts, ", ") << "\n";

  report_.results.push_back(std::move(c));
  return absl::OkStatus();
}

absl::Status ModelsExperiment::WriteOutputs(bool plot) {
  const std::string& out = outcome_.out_dir;
  report_.date = Now();
  TESSEL_RETURN_IF_ERROR(
      support::WriteFileAtomically(out + "/summary.csv", ModelsSummaryCsv(report_)));
  TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(out + "/times.csv", ModelsTimesCsv(report_)));
  if (plot) {
    absl::StatusOr<std::string> script =
        options_.plot_script.empty() ? FindPlotScript() : options_.plot_script;
    absl::StatusOr<std::string> png =
        script.ok() ? RunBarPlotScript(*script, out + "/summary.csv", out, config_.name,
                                       config_.chart, config_.name + ".png", options_.python)
                    : script.status();
    if (png.ok()) {
      report_.plot = *png;
    } else {
      outcome_.warnings.push_back(absl::StrCat("no figure: ", png.status().message()));
    }
  }
  TESSEL_RETURN_IF_ERROR(
      support::WriteFileAtomically(out + "/summary.md", ModelsSummaryMarkdown(report_)));
  return absl::OkStatus();
}

absl::StatusOr<ModelsOutcome> ModelsExperiment::Run() {
  TESSEL_RETURN_IF_ERROR(Prepare());
  if (config_.tuning) {
    for (const NetworkSpec& n : config_.networks) TESSEL_RETURN_IF_ERROR(Tune(n.name));
  }
  for (size_t i = 0; i < config_.networks.size(); ++i) {
    TESSEL_RETURN_IF_ERROR(Time(i));
    // The figure waits for the end: plotting takes seconds, the CSVs and the report milliseconds.
    TESSEL_RETURN_IF_ERROR(WriteOutputs(/*plot=*/false));
  }
  TESSEL_RETURN_IF_ERROR(WriteOutputs(options_.plot));
  outcome_.networks = static_cast<int>(report_.results.size());
  for (const char* file : {"summary.csv", "times.csv", "summary.md"})
    outcome_.files.push_back(file);
  if (!report_.plot.empty()) outcome_.files.push_back(report_.plot);
  for (const NetworkTuning& t : report_.tuning) outcome_.files.push_back(t.log);
  outcome_.table = ModelsSummaryTable(report_);
  return outcome_;
}

}  // namespace

absl::StatusOr<ModelsOutcome> RunModelsExperiment(const ModelsConfig& config,
                                                  const RunnerOptions& options) {
  if (config.networks.empty() || config.variants.empty()) {
    return absl::InvalidArgumentError("a models experiment needs networks and variants");
  }
  ModelsExperiment experiment(config, options);
  return experiment.Run();
}

}  // namespace tessel::experiments
