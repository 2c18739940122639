#include "search/records/apply_history_best.h"

#include <cmath>
#include <iostream>
#include <utility>

#include "compiler/support/status_macros.h"
#include "search/records/log.h"

namespace tessel::search {

ApplyHistoryBest::ApplyHistoryBest(const std::vector<Record>& records) {
  for (const Record& record : records) {
    double cost = MeanCost(record.result);
    if (std::isinf(cost)) continue;
    auto [it, inserted] = best_.try_emplace(record.task.Key(), record);
    if (!inserted && cost < MeanCost(it->second.result)) it->second = record;
  }
}

absl::StatusOr<ApplyHistoryBest> ApplyHistoryBest::FromLogs(const std::vector<std::string>& paths) {
  std::vector<Record> all;
  for (const std::string& path : paths) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<Record> records, ReadLog(path));
    for (Record& r : records) all.push_back(std::move(r));
  }
  return ApplyHistoryBest(all);
}

ApplyHistoryBest::ApplyHistoryBest(const ApplyHistoryBest& other) : best_(other.best_) {
  std::lock_guard<std::mutex> lock(other.mutex_);
  warned_ = other.warned_;
}

ApplyHistoryBest::ApplyHistoryBest(ApplyHistoryBest&& other) noexcept
    : best_(std::move(other.best_)) {
  std::lock_guard<std::mutex> lock(other.mutex_);
  warned_ = std::move(other.warned_);
}

std::optional<Record> ApplyHistoryBest::Best(const std::string& task_key) const {
  auto it = best_.find(task_key);
  if (it == best_.end()) return std::nullopt;
  return it->second;
}

Config ApplyHistoryBest::Query(const Task& task, const ConfigSpace& space,
                               const Config& fallback) const {
  const std::string key = task.Key();
  std::string why;
  if (auto it = best_.find(key); it == best_.end()) {
    why = "no tuned config for " + key;
  } else {
    absl::StatusOr<Config> config = space.FromJson(it->second.config);
    if (config.ok()) return *std::move(config);
    why = "the tuned config for " + key + " does not fit the template's space (" +
          std::string(config.status().message()) + ")";
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (warned_.insert(key).second) {
    std::cerr << "warning: " << why << "; using the template's fallback\n";
  }
  return fallback;
}

}  // namespace tessel::search
