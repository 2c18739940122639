#include "costmodels/xgboost/training_set.h"

#include <algorithm>
#include <map>
#include <string>

#include "compiler/support/status_macros.h"

namespace tessel::costmodels::xgb {

absl::StatusOr<FlatRows> ComputeFlatRows(FeatureExtractor& features, const search::Task& task,
                                         const std::vector<search::Config>& configs) {
  FlatRows out;
  if (configs.empty()) return out;
  absl::StatusOr<std::vector<std::vector<float>>> batch = features.FlatBatch(task, configs);
  if (batch.ok()) {
    out.rows = *std::move(batch);
    out.index.resize(configs.size());
    for (size_t i = 0; i < configs.size(); ++i) out.index[i] = static_cast<int>(i);
    return out;
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    absl::StatusOr<std::vector<float>> row = features.Flat(task, configs[i]);
    if (!row.ok()) continue;
    out.rows.push_back(*std::move(row));
    out.index.push_back(static_cast<int>(i));
  }
  if (out.rows.empty()) return batch.status();
  return out;
}

absl::StatusOr<TrainingSet> CollectTrainingSet(FeatureExtractor& features,
                                               const std::vector<Sample>& samples) {
  // Sample positions per task, tasks in order of first appearance.
  std::map<std::string, int> group_of;
  std::vector<std::vector<int>> groups;
  for (size_t i = 0; i < samples.size(); ++i) {
    auto [it, inserted] = group_of.emplace(samples[i].task.Key(), static_cast<int>(groups.size()));
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(static_cast<int>(i));
  }
  TrainingSet set;
  for (const std::vector<int>& group : groups) {
    double best = 0;
    for (int i : group) best = std::max(best, samples[i].throughput);
    if (!(best > 0)) continue;
    std::vector<search::Config> configs;
    configs.reserve(group.size());
    for (int i : group) configs.push_back(samples[i].config);
    TESSEL_ASSIGN_OR_RETURN(FlatRows rows,
                            ComputeFlatRows(features, samples[group[0]].task, configs));
    for (size_t r = 0; r < rows.rows.size(); ++r) {
      set.rows.push_back(std::move(rows.rows[r]));
      set.labels.push_back(static_cast<float>(samples[group[rows.index[r]]].throughput / best));
    }
    set.group_sizes.push_back(static_cast<unsigned>(rows.rows.size()));
  }
  return set;
}

std::vector<float> ToMatrix(const std::vector<std::vector<float>>& rows, int64_t width) {
  std::vector<float> out(rows.size() * width, 0.0f);
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t n = std::min<int64_t>(width, static_cast<int64_t>(rows[r].size()));
    std::copy(rows[r].begin(), rows[r].begin() + n, out.begin() + r * width);
  }
  return out;
}

int64_t LongestRow(const std::vector<std::vector<float>>& rows) {
  int64_t longest = 0;
  for (const auto& row : rows) longest = std::max<int64_t>(longest, row.size());
  return longest;
}

}  // namespace tessel::costmodels::xgb
