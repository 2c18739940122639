#include "search/tuner/tuner.h"

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <memory>
#include <random>
#include <thread>
#include <utility>

#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"
#include "costmodels/cost_model.h"
#include "costmodels/features/feature_extractor.h"
#include "search/explorers/explorer.h"
#include "search/records/log.h"
#include "search/tuner/diversity.h"

namespace tessel::search {
namespace {

// Features are the same on any number of threads, and a plan is never made while a batch is
// measured: every core extracts (on large spaces the explorer's scoring is most of a run).
int FeatureThreads(const TunerOptions& o) {
  return std::max(o.threads, static_cast<int>(std::thread::hardware_concurrency()));
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Giga-operations per second of a result; 0 for a failure.
double Gflops(double flops, const MeasureResult& result) {
  double cost = MeanCost(result);
  return std::isfinite(cost) && cost > 0 ? flops / cost / 1e9 : 0.0;
}

absl::Status CheckOptions(const TunerOptions& o) {
  if (o.trials < 0)
    return absl::InvalidArgumentError(absl::StrCat("tuner: trials must be >= 0, got ", o.trials));
  if (o.plan_size < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("tuner: plan_size must be >= 1, got ", o.plan_size));
  if (o.early_stopping < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("tuner: early_stopping must be >= 0, got ", o.early_stopping));
  if (!(o.epsilon >= 0 && o.epsilon <= 1))
    return absl::InvalidArgumentError(
        absl::StrCat("tuner: epsilon must be in [0, 1], got ", o.epsilon));
  if (o.diversity_factor < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("tuner: diversity_factor must be >= 1, got ", o.diversity_factor));
  if (o.batch_size < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("tuner: batch_size must be >= 1, got ", o.batch_size));
  if (o.threads < 1)
    return absl::InvalidArgumentError(absl::StrCat("tuner: threads must be >= 1, got ", o.threads));
  return absl::OkStatus();
}

// The records of `key` in the log at path (none when the file does not exist yet).
absl::StatusOr<std::vector<Record>> ResumedRecords(const std::string& path,
                                                   const std::string& key) {
  std::vector<Record> mine;
  if (path.empty() || !std::filesystem::exists(path)) return mine;
  TESSEL_ASSIGN_OR_RETURN(std::vector<Record> all, ReadLog(path));
  for (Record& r : all)
    if (r.task.Key() == key) mine.push_back(std::move(r));
  return mine;
}

// Samples of other tasks of the same template in the transfer logs.
absl::StatusOr<std::vector<costmodels::Sample>> TransferSamples(const TunerOptions& options,
                                                                const Task& task,
                                                                const target::TargetFacts& facts) {
  std::vector<Record> others;
  for (const std::string& path : options.transfer_from) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<Record> records, ReadLog(path));
    for (Record& r : records)
      if (r.task.template_name == task.template_name && r.task.Key() != task.Key())
        others.push_back(std::move(r));
  }
  return costmodels::SamplesFromRecords(others, facts);
}

// The state of one Tune call.
class TuningRun {
 public:
  TuningRun(const Task& task, const TunerOptions& options, const MeasureFn& measure,
            ops::Instantiated fallback)
      : task_(task),
        options_(options),
        measure_(measure),
        space_(std::move(fallback.space)),
        flops_(fallback.program.flops),
        fallback_(std::move(fallback.config)),
        rng_(options.seed ^ 0x5eed7u) {}

  // Builds the explorer and the model and takes in the log's records; opens the log for
  // appending when `append` (Tune does, ProposeNext does not).
  absl::Status Setup(const target::TargetFacts& facts, bool append);
  absl::StatusOr<TuneResult> Run(const std::function<void(const TuneProgress&)>& on_batch);
  absl::StatusOr<Proposal> Propose(int count);

 private:
  // Takes a measured (or resumed) record into the history.
  void Absorb(const Record& record, const Config& config);
  absl::StatusOr<std::vector<Config>> NextBatch(int size);
  // Why tuning is over (budget, early stopping), if it is.
  std::optional<std::string> Over() const;
  absl::Status RefillPlan();
  std::vector<Config> RandomUnvisited(int n, const std::vector<Config>& also_exclude);

  const Task& task_;
  const TunerOptions& options_;
  const MeasureFn& measure_;
  ConfigSpace space_;
  double flops_;
  Config fallback_;
  std::mt19937_64 rng_;
  std::unique_ptr<Explorer> explorer_;
  std::unique_ptr<costmodels::CostModel> model_;
  std::optional<LogWriter> log_;

  absl::flat_hash_set<int64_t> visited_;
  std::vector<costmodels::Sample> samples_;
  std::deque<Config> plan_;
  size_t samples_at_fit_ = 0;
  bool model_trained_ = false;
  TuneResult result_;
  int best_trial_ = 0;  // trial count when the best so far was found
};

absl::Status TuningRun::Setup(const target::TargetFacts& facts, bool append) {
  ExplorerOptions explorer_options{.seed = options_.seed, .params = options_.explorer_params};
  TESSEL_ASSIGN_OR_RETURN(explorer_, MakeExplorer(options_.explorer, space_, explorer_options));
  if (!options_.cost_model.empty()) {
    TESSEL_ASSIGN_OR_RETURN(costmodels::FeatureKind kind,
                            costmodels::FeatureKindFromName(options_.features));
    costmodels::CostModelOptions model_options{
        .seed = options_.seed,
        .features = std::shared_ptr<costmodels::FeatureExtractor>(
            costmodels::MakeProgramFeatureExtractor(kind, facts, FeatureThreads(options_))),
        .threads = options_.threads};
    TESSEL_ASSIGN_OR_RETURN(model_, costmodels::MakeCostModel(options_.cost_model, model_options));
    if (!explorer_->model_guided())
      return absl::InvalidArgumentError(absl::StrCat(
          "tuner: explorer '", options_.explorer, "' is black-box and cannot use cost model '",
          options_.cost_model, "'; leave the model empty or use a model-guided explorer (sa)"));
    if (!options_.transfer_from.empty()) {
      TESSEL_ASSIGN_OR_RETURN(std::vector<costmodels::Sample> prior,
                              TransferSamples(options_, task_, facts));
      if (prior.empty())
        return absl::InvalidArgumentError(
            absl::StrCat("tuner: the transfer logs hold no record of another task of template ",
                         task_.template_name));
      TESSEL_RETURN_IF_ERROR(model_->FitTransfer(prior));
      model_trained_ = true;
    }
  } else if (explorer_->model_guided()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tuner: explorer '", options_.explorer, "' needs a cost model (e.g. xgb)"));
  }

  TESSEL_ASSIGN_OR_RETURN(std::vector<Record> resumed,
                          ResumedRecords(options_.log_path, task_.Key()));
  std::vector<Config> configs;
  std::vector<double> fitness;
  for (const Record& record : resumed) {
    absl::StatusOr<Config> config = space_.FromJson(record.config);
    if (!config.ok())
      return absl::FailedPreconditionError(absl::StrCat(
          options_.log_path, ": a record of this task does not fit the template's space (",
          config.status().message(), "); the template changed since: use a new log"));
    Absorb(record, *config);
    configs.push_back(*config);
    fitness.push_back(samples_.back().throughput);
  }
  result_.resumed = static_cast<int>(resumed.size());
  if (!configs.empty()) explorer_->Observe(configs, fitness);
  if (model_ && !samples_.empty()) {
    TESSEL_RETURN_IF_ERROR(model_->Fit(samples_));
    samples_at_fit_ = samples_.size();
    model_trained_ = true;
  }
  if (append && !options_.log_path.empty()) {
    TESSEL_ASSIGN_OR_RETURN(LogWriter writer, LogWriter::Open(options_.log_path));
    log_.emplace(std::move(writer));
  }
  return absl::OkStatus();
}

void TuningRun::Absorb(const Record& record, const Config& config) {
  if (config.index() >= 0) visited_.insert(config.index());
  double gflops = Gflops(flops_, record.result);
  samples_.push_back({task_, config, gflops});
  ++result_.trials;
  if (record.result.error != ErrorKind::kNone) ++result_.errors;
  if (gflops > result_.best_gflops) {
    result_.best_gflops = gflops;
    result_.best = record;
    best_trial_ = result_.trials;
  }
}

std::vector<Config> TuningRun::RandomUnvisited(int n, const std::vector<Config>& also_exclude) {
  std::vector<int64_t> exclude(visited_.begin(), visited_.end());
  std::sort(exclude.begin(), exclude.end());  // the set's order is not deterministic
  for (const Config& c : also_exclude) exclude.push_back(c.index());
  return space_.SampleUnique(n, rng_, exclude);
}

absl::Status TuningRun::RefillPlan() {
  plan_.clear();
  int n = options_.plan_size;
  if (!model_trained_) {
    // Nothing to guide the explorer yet: the first plan is random (as AutoTVM's first batch).
    for (Config& c : RandomUnvisited(n, {})) plan_.push_back(std::move(c));
    return absl::OkStatus();
  }
  absl::Status predict_status;
  ScoreFn score = [&](const std::vector<Config>& configs) {
    absl::StatusOr<std::vector<double>> s = model_->Predict(task_, configs);
    if (s.ok()) return *std::move(s);
    if (predict_status.ok()) predict_status = s.status();
    return std::vector<double>(configs.size(), 0.0);
  };
  int wanted = options_.diversity ? n * options_.diversity_factor : n;
  std::vector<Config> proposed = explorer_->Propose(wanted, visited_, &score);
  TESSEL_RETURN_IF_ERROR(predict_status);
  if (options_.diversity && !proposed.empty()) {
    std::vector<double> scores = score(proposed);
    TESSEL_RETURN_IF_ERROR(predict_status);
    proposed = DiversePick(proposed, scores, n, 1.0 / std::max(1, space_.num_knobs()));
  }
  if (proposed.size() > static_cast<size_t>(n)) proposed.resize(n);
  // Epsilon-greedy: the tail of the plan is replaced by random points.
  int random_count = static_cast<int>(std::lround(options_.epsilon * n));
  if (random_count > 0) {
    size_t keep =
        proposed.size() > static_cast<size_t>(random_count) ? proposed.size() - random_count : 0;
    proposed.resize(keep);
    for (Config& c : RandomUnvisited(random_count, proposed)) proposed.push_back(std::move(c));
  }
  for (Config& c : proposed) plan_.push_back(std::move(c));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Config>> TuningRun::NextBatch(int size) {
  std::vector<Config> batch;
  absl::flat_hash_set<int64_t> in_batch;
  if (options_.measure_fallback && size > 0 && fallback_.index() >= 0 &&
      !visited_.contains(fallback_.index())) {
    batch.push_back(fallback_);
    in_batch.insert(fallback_.index());
  }
  if (!model_) {
    const int wanted = size - static_cast<int>(batch.size());
    if (wanted <= 0) return batch;
    if (batch.empty()) return explorer_->Propose(wanted, visited_, nullptr);
    absl::flat_hash_set<int64_t> exclude = visited_;  // the fallback is taken already
    exclude.insert(in_batch.begin(), in_batch.end());
    for (Config& c : explorer_->Propose(wanted, exclude, nullptr)) batch.push_back(std::move(c));
    return batch;
  }
  bool refilled = false;
  while (static_cast<int>(batch.size()) < size) {
    if (plan_.empty()) {
      if (refilled) break;  // a fresh plan had nothing new: the space is used up
      TESSEL_RETURN_IF_ERROR(RefillPlan());
      refilled = true;
      if (plan_.empty()) break;
    }
    Config c = std::move(plan_.front());
    plan_.pop_front();
    if (c.index() >= 0 && (visited_.contains(c.index()) || !in_batch.insert(c.index()).second))
      continue;
    batch.push_back(std::move(c));
  }
  return batch;
}

std::optional<std::string> TuningRun::Over() const {
  if (result_.trials >= options_.trials) return "budget";
  if (options_.early_stopping > 0 && result_.trials - best_trial_ >= options_.early_stopping) {
    return "early stopping";
  }
  return std::nullopt;
}

absl::StatusOr<Proposal> TuningRun::Propose(int count) {
  Proposal proposal;
  if (std::optional<std::string> over = Over()) {
    result_.stop_reason = *over;
  } else {
    TESSEL_ASSIGN_OR_RETURN(proposal.configs,
                            NextBatch(std::min(count, options_.trials - result_.trials)));
    if (proposal.configs.empty()) result_.stop_reason = "space exhausted";
  }
  proposal.so_far = result_;
  return proposal;
}

absl::StatusOr<TuneResult> TuningRun::Run(
    const std::function<void(const TuneProgress&)>& on_batch) {
  const int batch_size = options_.batch_size;
  while (true) {
    if (std::optional<std::string> over = Over()) {
      result_.stop_reason = *over;
      break;
    }
    auto start = std::chrono::steady_clock::now();
    TESSEL_ASSIGN_OR_RETURN(std::vector<Config> batch,
                            NextBatch(std::min(batch_size, options_.trials - result_.trials)));
    result_.times.plan += SecondsSince(start);
    if (batch.empty()) {
      result_.stop_reason = "space exhausted";
      break;
    }
    auto measure_start = std::chrono::steady_clock::now();
    TESSEL_ASSIGN_OR_RETURN(std::vector<MeasureResult> measured, measure_(task_, batch));
    result_.times.measure += SecondsSince(measure_start);
    result_.times.measured += static_cast<int>(batch.size());
    for (const MeasureResult& m : measured) result_.times.build += m.build_seconds;
    TESSEL_CHECK(measured.size() == batch.size())
        << "measured " << measured.size() << " of a batch of " << batch.size();
    std::vector<Record> records;
    std::vector<double> fitness;
    for (size_t i = 0; i < batch.size(); ++i) {
      Record record{.task = task_,
                    .config = batch[i].ToJson(),
                    .config_index = batch[i].index(),
                    .result = std::move(measured[i])};
      Absorb(record, batch[i]);
      fitness.push_back(samples_.back().throughput);
      records.push_back(std::move(record));
    }
    if (log_) TESSEL_RETURN_IF_ERROR(log_->Append(records));
    explorer_->Observe(batch, fitness);
    if (model_ && samples_.size() - samples_at_fit_ >= static_cast<size_t>(options_.plan_size)) {
      auto fit_start = std::chrono::steady_clock::now();
      TESSEL_RETURN_IF_ERROR(model_->Fit(samples_));
      result_.times.fit += SecondsSince(fit_start);
      samples_at_fit_ = samples_.size();
      model_trained_ = true;
      plan_.clear();  // the next batch comes from a plan under the new model
    }
    if (on_batch) {
      TuneProgress progress{.trials = result_.trials,
                            .budget = options_.trials,
                            .resumed = result_.resumed,
                            .best_gflops = result_.best_gflops,
                            .last_batch_seconds = SecondsSince(start),
                            .batch = std::move(records),
                            .times = result_.times};
      on_batch(progress);
    }
  }
  return result_;
}

// A tuning run of task, set up (Tune's and ProposeNext's errors before any measurement).
absl::StatusOr<std::unique_ptr<TuningRun>> StartRun(const Task& task, const TunerOptions& options,
                                                    const MeasureFn& measure, bool append) {
  TESSEL_RETURN_IF_ERROR(CheckOptions(options));
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(task.target));
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::FindTemplate(task.template_name));
  TESSEL_ASSIGN_OR_RETURN(ops::Instantiated fallback,
                          ops::InstantiateFallback(*t, task.args, facts));
  auto run = std::make_unique<TuningRun>(task, options, measure, std::move(fallback));
  TESSEL_RETURN_IF_ERROR(run->Setup(facts, append));
  return run;
}

}  // namespace

std::string TuneTimes::ToString() const {
  const double wall = total();
  if (measured == 0 || !(wall > 0)) return "no trial measured";
  auto share = [wall](double part) { return static_cast<int>(std::lround(100 * part / wall)); };
  return absl::StrFormat(
      "%.1f trials/min: measure %d%% (build %.0f s of builder time), plan %d%%, fit %d%%",
      60.0 * measured / wall, share(measure), build, share(plan), share(fit));
}

absl::StatusOr<TuneResult> Tune(const Task& task, const TunerOptions& options,
                                const MeasureFn& measure,
                                const std::function<void(const TuneProgress&)>& on_batch) {
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<TuningRun> run,
                          StartRun(task, options, measure, /*append=*/true));
  return run->Run(on_batch);
}

absl::StatusOr<Proposal> ProposeNext(const Task& task, const TunerOptions& options, int count) {
  if (count < 1) {
    return absl::InvalidArgumentError(absl::StrCat("tuner: a batch of ", count, " configs"));
  }
  TunerOptions o = options;
  // The whole batch from one plan under the model the log trains.
  o.plan_size = std::max(o.plan_size, count);
  const MeasureFn never =
      [](const Task&, const std::vector<Config>&) -> absl::StatusOr<std::vector<MeasureResult>> {
    TESSEL_CHECK(false) << "ProposeNext measures nothing";
    return std::vector<MeasureResult>{};
  };
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<TuningRun> run,
                          StartRun(task, o, never, /*append=*/false));
  return run->Propose(count);
}

absl::StatusOr<TuneResult> Tune(const Task& task, const TunerOptions& options, Measurer& measurer,
                                const std::function<void(const TuneProgress&)>& on_batch) {
  MeasureFn measure = [&measurer](const Task& t, const std::vector<Config>& configs) {
    return measurer.Measure(t, configs);
  };
  return Tune(task, options, measure, on_batch);
}

}  // namespace tessel::search
