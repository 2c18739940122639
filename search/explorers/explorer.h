#pragma once

#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/space/config_space.h"

// Explorers choose which configs of a space to measure next. Two kinds:
//   model-guided (`sa`): Propose gets a score function (a cost model's predictions, larger is
//     better) and returns the best unvisited configs it can find with it;
//   black-box (`ga`, `random`, `grid`): Propose gets no score function and learns only from the
//     measured fitness passed to Observe.
// Every explorer is deterministic for its seed: the same calls give the same proposals.
namespace tessel::search {

// Scores of configs, larger is better, one per config.
using ScoreFn = std::function<std::vector<double>(const std::vector<Config>&)>;

class Explorer {
 public:
  virtual ~Explorer() = default;
  virtual std::string name() const = 0;
  // Whether Propose needs a score function.
  virtual bool model_guided() const = 0;
  // Up to n distinct valid configs whose indices are not in `visited`, best first for guided
  // explorers. Fewer (possibly none) only when the space has no more unvisited valid points the
  // explorer can reach. `score` is null for black-box explorers and required for guided ones.
  virtual std::vector<Config> Propose(int n, const absl::flat_hash_set<int64_t>& visited,
                                      const ScoreFn* score) = 0;
  // Measured results of configs (any order, any subset of what was proposed): fitness is the
  // throughput, 0 for a failure. Guided explorers may ignore it.
  virtual void Observe(const std::vector<Config>& /*configs*/,
                       const std::vector<double>& /*fitness*/) {}
};

struct ExplorerOptions {
  uint64_t seed = 0;
  // Explorer-specific parameters (each explorer documents its keys and defaults in its header);
  // an unknown key is an error naming it.
  nlohmann::json params = nlohmann::json::object();
};

using ExplorerFactory = std::function<absl::StatusOr<std::unique_ptr<Explorer>>(
    const ConfigSpace& space, const ExplorerOptions& options)>;

// Registration once per name (a repeat fails a check); TESSEL_REGISTER_EXPLORER at namespace
// scope, the library linked with alwayslink = 1.
void RegisterExplorer(const std::string& name, ExplorerFactory factory);
// NotFound listing the known names; the factory's error for bad params.
absl::StatusOr<std::unique_ptr<Explorer>> MakeExplorer(const std::string& name,
                                                       const ConfigSpace& space,
                                                       const ExplorerOptions& options);
std::vector<std::string> ExplorerNames();  // sorted

}  // namespace tessel::search

#define TESSEL_EXPLORER_CONCAT_INNER(a, b) a##b
#define TESSEL_EXPLORER_CONCAT(a, b) TESSEL_EXPLORER_CONCAT_INNER(a, b)
#define TESSEL_REGISTER_EXPLORER(name, factory)                                           \
  [[maybe_unused]] static const bool TESSEL_EXPLORER_CONCAT(tessel_explorer_, __LINE__) = \
      (::tessel::search::RegisterExplorer(name, factory), true)
