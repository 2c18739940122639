#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "search/records/record.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// "Which config for this task": the best measured config from tuning records, or the template's
// fallback when the task was never tuned successfully.
namespace tessel::search {

class ApplyHistoryBest {
 public:
  explicit ApplyHistoryBest(const std::vector<Record>& records);
  // Records of every log, read in order (ReadLog's defaults); the first error stops.
  static absl::StatusOr<ApplyHistoryBest> FromLogs(const std::vector<std::string>& paths);

  ApplyHistoryBest(const ApplyHistoryBest& other);
  ApplyHistoryBest(ApplyHistoryBest&& other) noexcept;

  // The successful record with the lowest MeanCost for the task with this key (the earliest on a
  // tie), or nullopt when there is none.
  std::optional<Record> Best(const std::string& task_key) const;

  // Every successful record of the task with this key, lowest MeanCost first (the earliest first
  // on a tie): the alternatives to the best, e.g. one whose layout suits its neighbours.
  // The reference lives as long as this object.
  const std::vector<Record>& Successful(const std::string& task_key) const;

  // The best record's config read back in `space` (the task's space), or `fallback` when the task
  // has no successful record or its config no longer fits the space (the template changed).
  // Falling back prints one warning line to std::cerr, once per task key for the life of this
  // object, naming the other targets (CPUs) the task was tuned for, if any. Thread-safe.
  Config Query(const Task& task, const ConfigSpace& space, const Config& fallback) const;

  // The targets other than task.target for which the same template and arguments have a
  // successful record, sorted: a log tuned on another CPU is not applied to this one.
  std::vector<std::string> OtherTargets(const Task& task) const;

  // Why `task` gets no tuned config, as Query's warning says it, e.g. "no tuned config for KEY
  // (tuned for 'llvm -mcpu=znver4 -fast-math-contract' only, another target)".
  std::string WhyUntuned(const Task& task) const;

 private:
  absl::flat_hash_map<std::string, Record> best_;
  // Sorted as Successful returns them, once, when built.
  absl::flat_hash_map<std::string, std::vector<Record>> successful_;
  // "<template>|<args>" -> the targets with a successful record of it.
  absl::flat_hash_map<std::string, std::vector<std::string>> targets_;
  mutable std::mutex mutex_;
  mutable absl::flat_hash_set<std::string> warned_;
};

}  // namespace tessel::search
