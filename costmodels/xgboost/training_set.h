#pragma once

#include <absl/status/statusor.h>

#include <vector>

#include "costmodels/cost_model.h"
#include "costmodels/features/feature_extractor.h"

// Flat feature rows of configs and samples, as the xgb model feeds them to XGBoost.
namespace tessel::costmodels::xgb {

// Rows of the configs whose features could be computed; index[i] is row i's config position.
struct FlatRows {
  std::vector<std::vector<float>> rows;
  std::vector<int> index;
};

// One FlatBatch when every config lowers; otherwise config by config, leaving out those that fail.
// The extractor's error when none succeeds (and configs is not empty).
absl::StatusOr<FlatRows> ComputeFlatRows(FeatureExtractor& features, const search::Task& task,
                                         const std::vector<search::Config>& configs);

// Ranking data: rows grouped by task (groups in order of the task's first sample), labels the
// throughput over the best of its task. Tasks whose samples all have throughput 0 give no
// ranking information and are left out; so are samples whose features cannot be computed.
struct TrainingSet {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  std::vector<unsigned> group_sizes;
};
absl::StatusOr<TrainingSet> CollectTrainingSet(FeatureExtractor& features,
                                               const std::vector<Sample>& samples);

// The rows as a row-major rows.size() x width matrix: each zero-padded or truncated to width.
std::vector<float> ToMatrix(const std::vector<std::vector<float>>& rows, int64_t width);

// The length of the longest row (0 for none).
int64_t LongestRow(const std::vector<std::vector<float>>& rows);

}  // namespace tessel::costmodels::xgb
