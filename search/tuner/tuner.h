#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "search/measure/measure.h"
#include "search/records/record.h"
#include "search/task/task.h"

// The tuning loop of one task (PAPER.md §2 "Loop" and "Model-based tuner").
//
// Each round takes a batch (batch_size configs, one per builder) from the plan, measures it,
// appends it to the log, and tells the explorer. With a cost model, the plan is the explorer's
// plan_size best unvisited configs under the model's scores, epsilon of them replaced by random
// ones, and the model is refit whenever plan_size more results have arrived. Without one (black-box
// explorers), the explorer proposes each batch itself. Tuning stops at `trials` measured configs,
// after `early_stopping` trials without a better one, or when the space has no unvisited valid
// point.
namespace tessel::search {

struct TunerOptions {
  // A registered cost model ("xgb", "treernn", "random"), or "" for a black-box explorer.
  std::string cost_model = "xgb";
  std::string explorer = "sa";  // a registered explorer
  nlohmann::json explorer_params = nlohmann::json::object();
  std::string features = "itervar";  // itervar | knob | curve (cost models only)
  int trials = 1000;                 // measured configs, this run's and the log's
  int early_stopping = 0;            // 0: never
  int plan_size = 64;
  double epsilon = 0.05;  // share of each plan drawn at random
  // Diversity-aware selection: pick the plan from diversity_factor x plan_size top candidates,
  // greedily maximising score plus knob diversity (submodular).
  bool diversity = false;
  int diversity_factor = 4;
  uint64_t seed = 0;  // same seed, same trials
  // The log to append to. Records already in it for this task count toward `trials`, are never
  // measured again and train the model before the first plan (resume). Empty: no log.
  std::string log_path = "";
  // Logs of other tasks of the same template: the cost model's prior (transfer learning).
  std::vector<std::string> transfer_from = {};
  // Model training threads; features are extracted on every core (or this many, if more).
  int threads = 1;
  // Configs per round; set it to the measurer's BuildOptions::workers so every builder has work.
  int batch_size = 2;
  // The template's fallback config (what an untuned compile uses) is the first config measured,
  // unless the log has it already: the best found is then never slower than the untuned program
  // as measured. Off for comparisons of search strategies, whose first trials it would make
  // alike; on for tuning a user compiles with.
  bool measure_fallback = false;
};

// Where a run's wall time went, over the trials this run measured (resumed ones cost nothing).
// The model's predictions and the features they need are part of plan (the explorer scores
// candidates through them); measure is the wall time of the measurer's calls, building and
// running; build sums the records' build_seconds, builder time that overlaps across builders.
struct TuneTimes {
  int measured = 0;  // trials measured by this run
  double plan = 0;
  double fit = 0;
  double measure = 0;
  double build = 0;

  double total() const { return plan + fit + measure; }
  // "12.5 trials/min: measure 81% (build 40 s of builder time), plan 17%, fit 2%".
  std::string ToString() const;
};

// What the progress callback sees after each batch.
struct TuneProgress {
  int trials = 0;          // measured so far, resumed records included
  int budget = 0;          // TunerOptions::trials
  int resumed = 0;         // records taken from the log
  double best_gflops = 0;  // best so far (0 before the first success)
  double last_batch_seconds = 0;
  std::vector<Record> batch;  // the batch just measured
  TuneTimes times;            // this run's so far
};

struct TuneResult {
  int trials = 0;  // measured configs, resumed ones included
  int resumed = 0;
  int errors = 0;              // failed measurements among all trials
  std::optional<Record> best;  // the fastest successful record
  double best_gflops = 0;
  std::string stop_reason;  // "budget", "early stopping", "space exhausted"
  TuneTimes times;
};

// Measures a batch of configs of a task: one result per config, in order (Measurer::Measure).
using MeasureFn = std::function<absl::StatusOr<std::vector<MeasureResult>>(
    const Task& task, const std::vector<Config>& configs)>;

// Errors: a task whose template or args are bad, an unknown model or explorer, a log that cannot
// be read or written (naming the path), a failure of measure itself. Failed candidates are
// records, never errors.
absl::StatusOr<TuneResult> Tune(const Task& task, const TunerOptions& options,
                                const MeasureFn& measure,
                                const std::function<void(const TuneProgress&)>& on_batch = {});
absl::StatusOr<TuneResult> Tune(const Task& task, const TunerOptions& options, Measurer& measurer,
                                const std::function<void(const TuneProgress&)>& on_batch = {});

// Tuning whose measurements happen elsewhere and later (search/measure/cuda_batch.h), one batch
// per call: the next `count` configs Tune would measure after the log's records of the task (the
// cost model trained on them, the explorer told of them), and where tuning stands. Nothing is
// measured or written; the caller appends the batch's records to the log before the next call.
struct Proposal {
  std::vector<Config> configs;  // at most count, fewer near the budget; empty when tuning is over
  TuneResult so_far;            // the log's trials, errors and best; stop_reason when it is over
};
// The errors of Tune; count must be at least 1.
absl::StatusOr<Proposal> ProposeNext(const Task& task, const TunerOptions& options, int count);

}  // namespace tessel::search
