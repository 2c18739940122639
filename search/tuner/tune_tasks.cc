#include "search/tuner/tune_tasks.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include "compiler/support/status_macros.h"
#include "search/records/log.h"
#include "search/tuner/progress_line.h"

namespace tessel::search {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Per template, the keys of the tasks a log holds records of.
using KeysByTemplate = absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>>;

// The log's keys; with missing_ok, a log that does not exist yet holds nothing. Read errors name
// the path.
absl::StatusOr<KeysByTemplate> KeysOf(const std::string& path, bool missing_ok) {
  KeysByTemplate keys;
  if (missing_ok && !std::filesystem::exists(path)) return keys;
  TESSEL_ASSIGN_OR_RETURN(std::vector<Record> records, ReadLog(path));
  for (const Record& r : records) keys[r.task.template_name].insert(r.task.Key());
  return keys;
}

// Whether the log holds a record of a task of this template other than `task` (what Tune's
// transfer takes; an offered log without one is an error there).
bool HoldsAnotherOf(const KeysByTemplate& keys, const Task& task) {
  auto it = keys.find(task.template_name);
  return it != keys.end() && (it->second.size() > 1 || !it->second.contains(task.Key()));
}

std::string Summary(const std::string& label, const TuneResult& r, double seconds) {
  std::string best = "best none (no successful trial)";
  if (r.best) {
    best = absl::StrFormat("best %.1f GFLOPS (%.4f ms)", r.best_gflops,
                           MeanCost(r.best->result) * 1e3);
  }
  return absl::StrFormat("%s: %s, %d trials (%d resumed, %d failed), stopped: %s, %s (%s)", label,
                         best, r.trials, r.resumed, r.errors, r.stop_reason,
                         FormatDuration(seconds), r.times.ToString());
}

}  // namespace

absl::StatusOr<std::vector<TuneResult>> TuneTasks(const std::vector<Task>& tasks,
                                                  const std::vector<std::string>& labels,
                                                  const TuneTasksOptions& options,
                                                  const MeasureFn& measure,
                                                  std::ostream* progress) {
  if (!labels.empty() && labels.size() != tasks.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("TuneTasks: ", labels.size(), " labels for ", tasks.size(), " tasks"));
  }
  const Clock::time_point start = Clock::now();
  const TunerOptions& base = options.tuner;
  // Transfer needs a model to take the prior (Tune ignores transfer logs without one).
  const bool transfer = options.transfer && !base.cost_model.empty() && !base.log_path.empty();
  // What each offered transfer log holds, read once; the tuning log's grows as tasks are tuned.
  std::vector<std::pair<std::string, KeysByTemplate>> offered;
  if (!base.cost_model.empty()) {
    for (const std::string& path : base.transfer_from) {
      TESSEL_ASSIGN_OR_RETURN(KeysByTemplate keys, KeysOf(path, /*missing_ok=*/false));
      offered.emplace_back(path, std::move(keys));
    }
  }
  KeysByTemplate logged;
  if (transfer) {
    TESSEL_ASSIGN_OR_RETURN(logged, KeysOf(base.log_path, /*missing_ok=*/true));
  }

  std::vector<TuneResult> results;
  int trials = 0, resumed = 0, errors = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task& task = tasks[i];
    const std::string label =
        absl::StrCat("[task ", i + 1, "/", tasks.size(), "] ",
                     labels.empty() || labels[i].empty() ? task.template_name : labels[i]);
    TunerOptions tuner = base;
    tuner.transfer_from.clear();
    for (const auto& [path, keys] : offered) {
      if (HoldsAnotherOf(keys, task)) tuner.transfer_from.push_back(path);
    }
    if (transfer && HoldsAnotherOf(logged, task) &&
        std::find(tuner.transfer_from.begin(), tuner.transfer_from.end(), base.log_path) ==
            tuner.transfer_from.end()) {
      tuner.transfer_from.push_back(base.log_path);
    }

    const Clock::time_point task_start = Clock::now();
    std::optional<ProgressLine> line;
    if (progress != nullptr) line.emplace(*progress, options.terminal, label);
    absl::StatusOr<TuneResult> result = Tune(task, tuner, measure, [&](const TuneProgress& p) {
      if (line) line->Update(p);
    });
    if (line) line->Finish();
    if (!result.ok()) {
      return absl::Status(result.status().code(),
                          absl::StrCat(label, ": ", result.status().message()));
    }
    if (progress != nullptr) *progress << Summary(label, *result, Since(task_start)) << "\n";
    if (transfer && result->trials > 0) logged[task.template_name].insert(task.Key());
    trials += result->trials;
    resumed += result->resumed;
    errors += result->errors;
    results.push_back(*std::move(result));
  }
  if (progress != nullptr) {
    *progress << absl::StrFormat("tuned %d tasks in %s: %d trials (%d resumed, %d failed)\n",
                                 tasks.size(), FormatDuration(Since(start)), trials, resumed,
                                 errors);
    progress->flush();
  }
  return results;
}

absl::StatusOr<std::vector<TuneResult>> TuneTasks(const std::vector<Task>& tasks,
                                                  const std::vector<std::string>& labels,
                                                  const TuneTasksOptions& options,
                                                  Measurer& measurer, std::ostream* progress) {
  MeasureFn measure = [&measurer](const Task& t, const std::vector<Config>& configs) {
    return measurer.Measure(t, configs);
  };
  return TuneTasks(tasks, labels, options, measure, progress);
}

}  // namespace tessel::search
