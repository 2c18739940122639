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

  // The best record's config read back in `space` (the task's space), or `fallback` when the task
  // has no successful record or its config no longer fits the space (the template changed).
  // Falling back prints one warning line to std::cerr, once per task key for the life of this
  // object. Thread-safe.
  Config Query(const Task& task, const ConfigSpace& space, const Config& fallback) const;

 private:
  absl::flat_hash_map<std::string, Record> best_;
  mutable std::mutex mutex_;
  mutable absl::flat_hash_set<std::string> warned_;
};

}  // namespace tessel::search
