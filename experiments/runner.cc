#include "experiments/runner.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_replace.h>
#include <absl/time/clock.h>
#include <absl/time/time.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "compiler/ops/template.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/support/atomic_file.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "experiments/bench_target.h"
#include "experiments/build_info.h"
#include "experiments/config_fields.h"
#include "experiments/onednn_baseline.h"
#include "experiments/plot.h"
#include "experiments/report.h"
#include "experiments/results_dir.h"
#include "search/explorers/explorer.h"
#include "search/measure/measure.h"
#include "search/measure/torch_reference.h"
#include "search/measure/vdla_measure.h"
#include "search/records/log.h"
#include "search/tuner/progress_line.h"
#include "search/tuner/tuner.h"
#include "workloads/layer_task.h"

namespace tessel::experiments {
namespace {

absl::Status ConfigError(const ExperimentConfig& config, int line, const std::string& key,
                         const std::string& problem) {
  return fields::ConfigError(config.source_path, line, key, problem);
}

struct Workload {
  const WorkloadSpec* spec = nullptr;
  search::Task task;
  const ops::Template* t = nullptr;
  double flops = 0;
  std::optional<BaselineTime> baseline;
};

// The task of each workload, checked against its template on this target.
absl::StatusOr<std::vector<Workload>> ResolveWorkloads(const ExperimentConfig& config,
                                                       const target::TargetFacts& facts) {
  std::vector<Workload> resolved;
  for (size_t i = 0; i < config.workloads.size(); ++i) {
    const WorkloadSpec& spec = config.workloads[i];
    const std::string key = absl::StrCat("workloads[", i, "]");
    Workload w;
    w.spec = &spec;
    const std::string template_name =
        spec.template_name.empty() ? config.template_name : spec.template_name;
    absl::Status checked;
    if (spec.table2) {
      absl::StatusOr<search::Task> task = workloads::LayerTask(spec.name, facts, template_name);
      checked = task.status();
      if (task.ok()) w.task = *std::move(task);
    } else {
      w.task = search::Task{template_name, spec.args, facts.target};
      checked = search::Space(w.task, facts).status();
    }
    if (!checked.ok()) return ConfigError(config, spec.line, key, std::string(checked.message()));
    TESSEL_ASSIGN_OR_RETURN(w.t, ops::FindTemplate(w.task.template_name));
    absl::StatusOr<ops::Instantiated> fallback = ops::InstantiateFallback(*w.t, w.task.args, facts);
    if (!fallback.ok()) {
      return ConfigError(config, spec.line, key,
                         absl::StrCat("the fallback config of ", w.t->name,
                                      " does not instantiate: ", fallback.status().message()));
    }
    w.flops = fallback->program.flops;
    const bool onednn = std::find(config.baselines.begin(), config.baselines.end(), "onednn") !=
                        config.baselines.end();
    if (onednn && w.t->op != "conv2d") {
      return ConfigError(config, spec.line, key,
                         absl::StrCat("baseline onednn times conv2d only; '", spec.name,
                                      "' is tuned with ", w.t->name, " (operator ", w.t->op, ")"));
    }
    resolved.push_back(std::move(w));
  }
  return resolved;
}

// A strategy's transfer_from as log files: "<cpu>" replaced by the target's CPU, a directory
// expanded to the *.jsonl files below it (sorted, so runs read them in the same order). Errors
// name the path.
absl::StatusOr<std::vector<std::string>> TransferLogs(const StrategySpec& s,
                                                      const target::Target& target) {
  const std::optional<std::string> cpu = target.Option("mcpu");
  std::vector<std::string> logs;
  for (const std::string& written : s.transfer_from) {
    std::string path = written;
    if (path.find("<cpu>") != std::string::npos) {
      if (!cpu || *cpu == "native") {
        return absl::InvalidArgumentError(
            absl::StrCat("'", written, "' names <cpu>, and the target names no CPU"));
      }
      path = absl::StrReplaceAll(path, {{"<cpu>", *cpu}});
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path, ec)) {
        if (entry.is_regular_file() && entry.path().extension() == ".jsonl") {
          found.push_back(entry.path().string());
        }
      }
      if (ec) return absl::NotFoundError(absl::StrCat("'", path, "': ", ec.message()));
      if (found.empty()) {
        return absl::NotFoundError(absl::StrCat("'", path, "' holds no tuning log (*.jsonl)"));
      }
      std::sort(found.begin(), found.end());
      logs.insert(logs.end(), found.begin(), found.end());
    } else if (std::filesystem::is_regular_file(path, ec)) {
      logs.push_back(path);
    } else {
      return absl::NotFoundError(
          absl::StrCat("'", path, "' is neither a tuning log nor a directory",
                       path == written ? "" : absl::StrCat(" (", written, ")")));
    }
  }
  return logs;
}

// Each workload has records of another task of its template in the logs (what the tuner trains
// the model on), so that no run fails after others have measured.
absl::Status CheckTransferRecords(const std::vector<std::string>& logs,
                                  const std::vector<Workload>& workloads) {
  std::set<std::pair<std::string, std::string>> held;  // (template, task key)
  for (const std::string& log : logs) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<search::Record> records, search::ReadLog(log));
    for (const search::Record& r : records) held.insert({r.task.template_name, r.task.Key()});
  }
  for (const Workload& w : workloads) {
    const bool any = std::any_of(held.begin(), held.end(), [&](const auto& h) {
      return h.first == w.task.template_name && h.second != w.task.Key();
    });
    if (!any) {
      return absl::InvalidArgumentError(
          absl::StrCat("the logs (", logs.size(), " files) hold no record of another task of ",
                       w.task.template_name, ", which workload ", w.spec->name, " is tuned with"));
    }
  }
  return absl::OkStatus();
}

// Each strategy's explorer takes its parameters and fits its cost model (or lack of one), and its
// transfer logs exist and fit every workload, checked before anything is measured. Fills
// transfer_logs: the resolved logs of each strategy.
absl::Status CheckStrategies(const ExperimentConfig& config, const std::vector<Workload>& workloads,
                             const target::TargetFacts& facts,
                             std::vector<std::vector<std::string>>& transfer_logs) {
  const Workload& first = workloads.front();
  transfer_logs.assign(config.strategies.size(), {});
  TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, search::Space(first.task, facts));
  for (size_t i = 0; i < config.strategies.size(); ++i) {
    const StrategySpec& s = config.strategies[i];
    const std::string key = absl::StrCat("strategies[", i, "]");
    absl::StatusOr<std::unique_ptr<search::Explorer>> explorer =
        search::MakeExplorer(s.explorer, space, {.seed = 0, .params = s.explorer_params});
    if (!explorer.ok()) {
      return ConfigError(config, s.line, absl::StrCat(key, ".explorer_params"),
                         std::string(explorer.status().message()));
    }
    if ((*explorer)->model_guided() && s.cost_model.empty()) {
      return ConfigError(
          config, s.line, absl::StrCat(key, ".cost_model"),
          absl::StrCat("missing: explorer '", s.explorer, "' is guided by a cost model"));
    }
    if (!(*explorer)->model_guided() && !s.cost_model.empty()) {
      return ConfigError(config, s.line, absl::StrCat(key, ".cost_model"),
                         absl::StrCat("explorer '", s.explorer,
                                      "' is black-box and takes no cost model (use sa)"));
    }
    if (s.transfer_from.empty()) continue;
    absl::StatusOr<std::vector<std::string>> logs = TransferLogs(s, facts.target);
    absl::Status fits = logs.ok() ? CheckTransferRecords(*logs, workloads) : logs.status();
    if (!fits.ok()) {
      return ConfigError(config, s.line, absl::StrCat(key, ".transfer_from"),
                         std::string(fits.message()));
    }
    transfer_logs[i] = *std::move(logs);
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return nlohmann::json();
  nlohmann::json json = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  return json.is_discarded() ? nlohmann::json() : json;
}

// oneDNN's time for every workload, reused from baseline.json when it was measured for the same
// arguments, threads, target and machine.
absl::Status MeasureBaselines(const ExperimentConfig& config, const std::string& out_dir,
                              std::vector<Workload>& workloads, std::ostream& note,
                              std::vector<std::string>& files) {
  if (std::find(config.baselines.begin(), config.baselines.end(), "onednn") ==
      config.baselines.end()) {
    return absl::OkStatus();
  }
  const std::string path = absl::StrCat(out_dir, "/baseline.json");
  TESSEL_ASSIGN_OR_RETURN(nlohmann::json recorded, ReadJsonFile(path));
  for (Workload& w : workloads) {
    const nlohmann::json key = BaselineKey(w.task.args, config.threads, w.task.target.ToString());
    w.baseline = FindRecordedBaseline(recorded, w.spec->name, key);
    if (w.baseline) {
      note << absl::StrFormat("oneDNN %s: %.4f ms (%s, measured %s, from baseline.json)\n",
                              w.spec->name, w.baseline->seconds * 1e3, w.baseline->implementation,
                              w.baseline->measured_at);
      continue;
    }
    absl::StatusOr<BaselineTime> time =
        MeasureOnednnConv2d(w.task.args, config.threads, config.measure.repeat);
    if (!time.ok()) {
      return absl::Status(time.status().code(), absl::StrCat("oneDNN baseline of ", w.spec->name,
                                                             ": ", time.status().message()));
    }
    w.baseline = *time;
    note << absl::StrFormat("oneDNN %s: %.4f ms = %.1f GFLOPS (%s, median of %d repeats)\n",
                            w.spec->name, time->seconds * 1e3, w.flops / time->seconds * 1e-9,
                            time->implementation, time->repeats.size());
    recorded = RecordBaseline(std::move(recorded), w.spec->name, key, *time);
  }
  TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(path, recorded.dump(2) + "\n"));
  files.push_back("baseline.json");
  return absl::OkStatus();
}

// The trials of `key` in a log, in measuring order, at most `limit`; none when there is no log.
absl::StatusOr<std::vector<Trial>> LoadTrials(const std::string& log, const std::string& key,
                                              int limit) {
  absl::StatusOr<std::vector<search::Record>> records = search::ReadLog(log);
  if (absl::IsNotFound(records.status())) return std::vector<Trial>();
  if (!records.ok()) return records.status();
  std::vector<Trial> trials;
  for (const search::Record& r : *records) {
    if (static_cast<int>(trials.size()) >= limit) break;
    if (r.task.Key() != key) continue;
    trials.push_back(
        {r.config_index, search::ErrorKindName(r.result.error), search::MeanCost(r.result)});
  }
  return trials;
}

// A run that stopped before its budget (early stopping, space exhausted) says so in a marker
// beside its log, so that a rerun skips it instead of tuning on.
nlohmann::json DoneMarker(const ExperimentConfig& config, const search::TuneResult& result) {
  return {{"trials_budget", config.trials},
          {"early_stopping", config.early_stopping},
          {"trials", result.trials},
          {"stop_reason", result.stop_reason}};
}

// Where a run's time went, summed over the sessions that measured its trials (a resumed run adds
// to it): beside its log, rewritten after every batch. Only the reports read it; a run without one
// (an interrupted first batch, or a log older than the file) is reported without times.
std::string TimesPath(const std::string& log) { return absl::StrCat(log, ".times.json"); }

std::optional<RunTimes> ReadTimes(const std::string& path) {
  absl::StatusOr<nlohmann::json> json = ReadJsonFile(path);
  if (!json.ok() || !json->is_object()) return std::nullopt;
  RunTimes t;
  t.measured = json->value("measured", 0);
  t.plan = json->value("plan_seconds", 0.0);
  t.fit = json->value("fit_seconds", 0.0);
  t.measure = json->value("measure_seconds", 0.0);
  return t;
}

RunTimes Plus(RunTimes t, const search::TuneTimes& more) {
  t.measured += more.measured;
  t.plan += more.plan;
  t.fit += more.fit;
  t.measure += more.measure;
  return t;
}

absl::Status WriteTimes(const std::string& path, const RunTimes& t) {
  const nlohmann::json json = {{"measured", t.measured},
                               {"plan_seconds", t.plan},
                               {"fit_seconds", t.fit},
                               {"measure_seconds", t.measure}};
  return support::WriteFileAtomically(path, json.dump() + "\n");
}

bool MarkedDone(const std::string& path, const ExperimentConfig& config) {
  absl::StatusOr<nlohmann::json> marker = ReadJsonFile(path);
  return marker.ok() && marker->is_object() &&
         marker->value("trials_budget", -1) == config.trials &&
         marker->value("early_stopping", -1) == config.early_stopping;
}

search::MeasureOptions MeasureOptionsFor(const ExperimentConfig& config, const Workload& w,
                                         const std::string& worker_path) {
  const MeasureSpec& m = config.measure;
  search::MeasureOptions options;
  options.build.workers = m.build_workers;
  options.build.timeout_seconds = m.timeout_seconds;
  options.run.number = m.number;
  options.run.repeat = m.repeat;
  options.run.min_repeat_ms = m.min_repeat_ms;
  options.run.flush_cache = m.flush_cache;
  options.run.threads = config.threads;
  options.run.timeout_seconds = m.timeout_seconds;
  options.run.check_correctness = m.check_correctness;
  // Winograd's transforms round more than a direct sum (as in `tessel bench ops`).
  const bool winograd = w.t->name.find("winograd") != std::string::npos;
  options.run.atol = m.atol >= 0 ? m.atol : (winograd ? 1e-2 : 1e-3);
  options.run.rtol = m.rtol >= 0 ? m.rtol : (winograd ? 1e-2 : 1e-3);
  options.worker_path = worker_path;
  options.reference = search::TorchReferenceFn();
  return options;
}

std::string Now() {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::Now(), absl::UTCTimeZone());
}

class Experiment {
 public:
  Experiment(const ExperimentConfig& config, const RunnerOptions& options)
      : config_(config),
        options_(options),
        note_(options.progress != nullptr ? options.progress->rdbuf() : nullptr) {}

  absl::StatusOr<ExperimentOutcome> Run();

 private:
  absl::Status Prepare();
  absl::Status TuneRun(size_t index);
  absl::Status WriteOutputs(bool plot);
  // How the workload's candidates are measured: measure workers, or VDLA's simulator.
  absl::StatusOr<search::MeasureFn> MeasureFor(const Workload& w);
  // The strategies guided by a cost model, in the config's order (compared in Fig. 13's figure).
  std::vector<std::string> ModelStrategies() const {
    std::vector<std::string> out;
    for (const StrategySpec& s : config_.strategies) {
      if (!s.cost_model.empty()) out.push_back(s.name);
    }
    return out;
  }
  std::string LogPath(const RunReport& run) const {
    return absl::StrCat(outcome_.out_dir, "/logs/", run.workload, "/", run.strategy, "_seed",
                        run.seed, ".jsonl");
  }

  const ExperimentConfig& config_;
  const RunnerOptions& options_;
  std::ostream note_;  // the progress stream, or nothing
  target::Target target_;
  target::TargetFacts facts_;
  std::vector<Workload> workloads_;
  ReportInput report_;
  std::map<std::string, search::MeasureFn> measures_;
  std::string worker_path_;
  std::vector<std::vector<std::string>> transfer_logs_;  // per strategy (CheckStrategies)
  ExperimentOutcome outcome_;
};

absl::Status Experiment::Prepare() {
  // VDLA's candidates run on its simulator here; every other target must be this machine's CPU.
  absl::StatusOr<target::Target> target = config_.target.kind() == "vdla"
                                              ? config_.target
                                              : target::ResolveCompileTarget(config_.target);
  if (!target.ok())
    return ConfigError(config_, 0, "target", std::string(target.status().message()));
  target_ = *target;
  runtime::ThreadPool::Global().SetNumThreads(config_.threads);
  TESSEL_ASSIGN_OR_RETURN(facts_, target::DescribeTarget(target_));
  // Templates size their parallel loops from the facts' cores: the programs' thread count.
  facts_.cores = config_.threads;
  TESSEL_ASSIGN_OR_RETURN(workloads_, ResolveWorkloads(config_, facts_));
  TESSEL_RETURN_IF_ERROR(CheckStrategies(config_, workloads_, facts_, transfer_logs_));

  outcome_.out_dir =
      options_.out_dir.empty() ? DefaultResultsDir(config_.name, target_) : options_.out_dir;
  TESSEL_RETURN_IF_ERROR(support::MakeDirectories(outcome_.out_dir));
  TESSEL_RETURN_IF_ERROR(
      MeasureBaselines(config_, outcome_.out_dir, workloads_, note_, outcome_.files));

  report_.config = &config_;
  report_.machine =
      absl::StrCat(experiments::BenchMetadata(target_, config_.threads), "build: commit ",
                   experiments::kGitCommit, " (", experiments::kGitState, ")\n");
  for (const Workload& w : workloads_) {
    report_.workloads.push_back({w.spec->name, w.t->name, w.flops, w.baseline});
  }
  for (const WorkloadSpec& w : config_.workloads) {
    for (const StrategySpec& s : config_.strategies) {
      for (uint64_t seed : config_.seeds)
        report_.runs.push_back({w.name, s.name, seed, {}, false, std::nullopt});
    }
  }
  outcome_.runs = static_cast<int>(report_.runs.size());
  return absl::OkStatus();
}

absl::StatusOr<search::MeasureFn> Experiment::MeasureFor(const Workload& w) {
  if (auto it = measures_.find(w.spec->name); it != measures_.end()) return it->second;
  if (target_.kind() == "vdla") {
    search::MeasureFn measure = search::VdlaMeasureFn(
        {.threads = config_.measure.build_workers, .reference = search::TorchReferenceFn()});
    return measures_.emplace(w.spec->name, std::move(measure)).first->second;
  }
  if (worker_path_.empty()) {
    if (!options_.worker_path.empty()) {
      worker_path_ = options_.worker_path;
    } else {
      TESSEL_ASSIGN_OR_RETURN(worker_path_, search::DefaultWorkerPath());
    }
  }
  TESSEL_ASSIGN_OR_RETURN(search::Measurer measurer,
                          search::Measurer::Create(MeasureOptionsFor(config_, w, worker_path_)));
  auto shared = std::make_shared<search::Measurer>(std::move(measurer));
  search::MeasureFn measure = [shared](const search::Task& task,
                                       const std::vector<search::Config>& configs) {
    return shared->Measure(task, configs);
  };
  return measures_.emplace(w.spec->name, std::move(measure)).first->second;
}

absl::Status Experiment::TuneRun(size_t index) {
  RunReport& run = report_.runs[index];
  const size_t per_workload = config_.strategies.size() * config_.seeds.size();
  const Workload& w = workloads_[index / per_workload];
  const size_t strategy = index / config_.seeds.size() % config_.strategies.size();
  const StrategySpec& s = config_.strategies[strategy];
  const std::string log = LogPath(run);
  const std::string marker = absl::StrCat(log, ".done");
  const std::string key = w.task.Key();
  const std::string label =
      absl::StrFormat("[task %d/%d] %s %s seed %d", index + 1, report_.runs.size(), run.workload,
                      run.strategy, run.seed);
  TESSEL_ASSIGN_OR_RETURN(run.trials, LoadTrials(log, key, config_.trials));
  run.times = ReadTimes(TimesPath(log));
  if (static_cast<int>(run.trials.size()) >= config_.trials || MarkedDone(marker, config_)) {
    run.finished = true;
    note_ << label << ": finished before (" << run.trials.size() << " trials in its log)\n";
    return absl::OkStatus();
  }

  search::TunerOptions tuner;
  tuner.cost_model = s.cost_model;
  tuner.explorer = s.explorer;
  tuner.explorer_params = s.explorer_params;
  tuner.features = s.features;
  tuner.trials = config_.trials;
  tuner.early_stopping = config_.early_stopping;
  tuner.plan_size = s.plan_size;
  tuner.epsilon = s.epsilon;
  tuner.diversity = s.diversity;
  tuner.transfer_from = transfer_logs_[strategy];
  tuner.seed = run.seed;
  tuner.log_path = log;
  tuner.threads = config_.model_threads;
  tuner.batch_size = config_.measure.build_workers;
  TESSEL_RETURN_IF_ERROR(
      support::MakeDirectories(std::filesystem::path(log).parent_path().string()));
  TESSEL_ASSIGN_OR_RETURN(const search::MeasureFn measure, MeasureFor(w));

  const double baseline_gflops = w.baseline ? w.flops / w.baseline->seconds * 1e-9 : 0;
  search::ProgressLine line(note_, options_.progress_in_place, label, baseline_gflops, "oneDNN");
  const RunTimes before = run.times.value_or(RunTimes{});
  absl::Status times_written;
  absl::StatusOr<search::TuneResult> result =
      search::Tune(w.task, tuner, measure, [&](const search::TuneProgress& p) {
        line.Update(p);
        run.times = Plus(before, p.times);
        if (times_written.ok()) times_written = WriteTimes(TimesPath(log), *run.times);
      });
  line.Finish();
  TESSEL_RETURN_IF_ERROR(times_written);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat(label, ": ", result.status().message()));
  }
  TESSEL_RETURN_IF_ERROR(
      support::WriteFileAtomically(marker, DoneMarker(config_, *result).dump() + "\n"));
  TESSEL_ASSIGN_OR_RETURN(run.trials, LoadTrials(log, key, config_.trials));
  run.finished = true;
  ++outcome_.tuned;
  note_ << absl::StrFormat("%s: %d trials (%d failed), best %.1f GFLOPS, stopped: %s; %s\n", label,
                           result->trials, result->errors, result->best_gflops, result->stop_reason,
                           result->times.ToString());
  return absl::OkStatus();
}

absl::Status Experiment::WriteOutputs(bool plot) {
  const std::string& out = outcome_.out_dir;
  report_.date = Now();
  TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(out + "/trials.csv", TrialsCsv(report_)));
  TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(out + "/summary.csv", SummaryCsv(report_)));
  if (plot) {
    absl::StatusOr<std::string> script =
        options_.plot_script.empty() ? FindPlotScript() : options_.plot_script;
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
        script.ok() ? RunPlotScript(*script, out + "/trials.csv", out, config_.name,
                                    ModelStrategies(), options_.python)
                    : script.status();
    if (plots.ok()) {
      report_.plots = *plots;
    } else {
      outcome_.warnings.push_back(absl::StrCat("no figures: ", plots.status().message()));
    }
  }
  TESSEL_RETURN_IF_ERROR(
      support::WriteFileAtomically(out + "/summary.md", SummaryMarkdown(report_)));
  return absl::OkStatus();
}

absl::StatusOr<ExperimentOutcome> Experiment::Run() {
  TESSEL_RETURN_IF_ERROR(Prepare());
  // Seed by seed: an experiment stopped part way (and resumed later) has every strategy of the
  // seeds it finished, so its partial figures compare like with like.
  const size_t seeds = config_.seeds.size();
  for (size_t seed = 0; seed < seeds; ++seed) {
    for (size_t i = seed; i < report_.runs.size(); i += seeds) {
      TESSEL_RETURN_IF_ERROR(TuneRun(i));
      // Figures wait for the end: plotting takes seconds, the CSVs and the report milliseconds.
      TESSEL_RETURN_IF_ERROR(WriteOutputs(/*plot=*/false));
    }
  }
  TESSEL_RETURN_IF_ERROR(WriteOutputs(options_.plot));
  for (const char* file : {"trials.csv", "summary.csv", "summary.md"}) {
    outcome_.files.push_back(file);
  }
  for (const auto& [workload, png] : report_.plots) outcome_.files.push_back(png);
  outcome_.table = SummaryTable(report_);
  return outcome_;
}

}  // namespace

absl::StatusOr<ExperimentOutcome> RunExperiment(const ExperimentConfig& config,
                                                const RunnerOptions& options) {
  if (config.workloads.empty() || config.strategies.empty() || config.seeds.empty()) {
    return absl::InvalidArgumentError("an experiment needs workloads, strategies and seeds");
  }
  Experiment experiment(config, options);
  return experiment.Run();
}

}  // namespace tessel::experiments
