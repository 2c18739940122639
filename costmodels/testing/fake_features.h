#pragma once

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <vector>

#include "costmodels/features/feature_extractor.h"

// Features without lowering, for model tests on synthetic spaces (any task, registered or not).
//   Flat: the config's value indices as floats, one per knob.
//   Tree: a root with an all-zero row, then one node per knob in a chain (knob 0 outermost), each
//         with the row {value index, knob position}.
// Configs whose index is in `failing` have no features (an error naming the config), as a
// template that cannot lower them.
namespace tessel::costmodels::testing {

inline constexpr int kFakeNodeWidth = 2;

class FakeFeatureExtractor : public FeatureExtractor {
 public:
  explicit FakeFeatureExtractor(std::set<int64_t> failing = {}) : failing_(std::move(failing)) {}

  absl::StatusOr<std::vector<float>> Flat(const search::Task& task,
                                          const search::Config& config) override {
    ++flat_calls_;
    if (failing_.count(config.index()) > 0) return Failure(task, config);
    std::vector<float> row;
    for (int64_t v : config.value_indices()) row.push_back(static_cast<float>(v));
    return row;
  }

  absl::StatusOr<LoopTree> Tree(const search::Task& task, const search::Config& config) override {
    if (failing_.count(config.index()) > 0) return Failure(task, config);
    LoopTree tree;
    tree.nodes.push_back({std::vector<float>(kFakeNodeWidth, 0.0f), {}});
    const std::vector<int64_t>& values = config.value_indices();
    for (size_t i = 0; i < values.size(); ++i) {
      tree.nodes.back().children.push_back(static_cast<int>(tree.nodes.size()));
      tree.nodes.push_back({{static_cast<float>(values[i]), static_cast<float>(i)}, {}});
    }
    return tree;
  }

  // How often Flat ran (FlatBatch included).
  int flat_calls() const { return flat_calls_; }

 private:
  static absl::Status Failure(const search::Task& task, const search::Config& config) {
    return absl::InvalidArgumentError(
        absl::StrCat("task ", task.Key(), ": config ", config.ToString(), " does not lower"));
  }

  std::set<int64_t> failing_;
  std::atomic<int> flat_calls_ = 0;  // FlatBatch may call Flat on several threads
};

}  // namespace tessel::costmodels::testing
