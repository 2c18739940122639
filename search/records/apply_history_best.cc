#include "search/records/apply_history_best.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <utility>

#include "compiler/support/status_macros.h"
#include "search/records/log.h"

namespace tessel::search {

namespace {

// The task's key without its target: the same operator on any target.
std::string WorkloadKey(const Task& task) {
  return absl::StrCat(task.template_name, "|", task.args.dump());
}

}  // namespace

ApplyHistoryBest::ApplyHistoryBest(const std::vector<Record>& records) {
  for (const Record& record : records) {
    double cost = MeanCost(record.result);
    if (std::isinf(cost)) continue;
    successful_[record.task.Key()].push_back(record);
    auto [it, inserted] = best_.try_emplace(record.task.Key(), record);
    if (inserted) targets_[WorkloadKey(record.task)].push_back(record.task.target.ToString());
    if (!inserted && cost < MeanCost(it->second.result)) it->second = record;
  }
  for (auto& [workload, targets] : targets_) std::sort(targets.begin(), targets.end());
  for (auto& [key, records] : successful_) {
    std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
      return MeanCost(a.result) < MeanCost(b.result);
    });
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

ApplyHistoryBest::ApplyHistoryBest(const ApplyHistoryBest& other)
    : best_(other.best_), successful_(other.successful_), targets_(other.targets_) {
  std::lock_guard<std::mutex> lock(other.mutex_);
  warned_ = other.warned_;
}

ApplyHistoryBest::ApplyHistoryBest(ApplyHistoryBest&& other) noexcept
    : best_(std::move(other.best_)),
      successful_(std::move(other.successful_)),
      targets_(std::move(other.targets_)) {
  std::lock_guard<std::mutex> lock(other.mutex_);
  warned_ = std::move(other.warned_);
}

std::optional<Record> ApplyHistoryBest::Best(const std::string& task_key) const {
  auto it = best_.find(task_key);
  if (it == best_.end()) return std::nullopt;
  return it->second;
}

const std::vector<Record>& ApplyHistoryBest::Successful(const std::string& task_key) const {
  static const std::vector<Record> kNone;
  auto it = successful_.find(task_key);
  return it == successful_.end() ? kNone : it->second;
}

std::vector<std::string> ApplyHistoryBest::OtherTargets(const Task& task) const {
  std::vector<std::string> others;
  if (auto it = targets_.find(WorkloadKey(task)); it != targets_.end()) {
    for (const std::string& t : it->second) {
      if (t != task.target.ToString()) others.push_back(t);
    }
  }
  return others;
}

std::string ApplyHistoryBest::WhyUntuned(const Task& task) const {
  std::string why = "no tuned config for " + task.Key();
  const std::vector<std::string> others = OtherTargets(task);
  if (!others.empty()) {
    absl::StrAppend(&why, " (tuned for '", absl::StrJoin(others, "', '"),
                    "' only, another target: a log tuned on another CPU is not applied here)");
  }
  return why;
}

Config ApplyHistoryBest::Query(const Task& task, const ConfigSpace& space,
                               const Config& fallback) const {
  const std::string key = task.Key();
  std::string why;
  if (auto it = best_.find(key); it == best_.end()) {
    why = WhyUntuned(task);
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
