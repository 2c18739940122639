#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "costmodels/features/feature_extractor.h"
#include "search/records/record.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// Cost models rank candidate configs of a task before they are measured (PAPER.md §2). Scores
// are relative: larger is better, only their order within one Predict call matters.
namespace tessel::costmodels {

// One measured candidate, as models learn from it.
struct Sample {
  search::Task task;
  search::Config config;
  // Giga-operations per second (flops / mean cost); 0 for a failed measurement.
  double throughput = 0;
};

// The records that belong to tasks whose template is registered, read back as Samples, in order:
// the config decoded in its task's space, the throughput the template's flops over the record's
// mean cost (0 for a failed measurement). Skipped without error: records of a template this build
// does not register (a log of another build) and records whose config no longer fits the space.
// A registered template that rejects a task's args is an error naming the task.
absl::StatusOr<std::vector<Sample>> SamplesFromRecords(const std::vector<search::Record>& records,
                                                       const target::TargetFacts& facts);

struct CostModelOptions {
  uint64_t seed = 0;  // same seed, same data: same predictions
  // Where features come from. Models share one extractor (its cache) with whoever made them.
  std::shared_ptr<FeatureExtractor> features;
  int threads = 1;  // training and feature threads
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string name() const = 0;
  // Trains on these samples, replacing what the model learned from earlier Fit calls (the tuner
  // passes every sample of the current task each time). A prior from FitTransfer is kept.
  virtual absl::Status Fit(const std::vector<Sample>& samples) = 0;
  // Learns a prior from samples of other tasks (other shapes of the same template). The prior's
  // weight decays as the current task gains samples (PAPER.md §2 "Transfer learning").
  // Unimplemented (naming the model) for a model without transfer.
  virtual absl::Status FitTransfer(const std::vector<Sample>& samples);
  // One score per config, larger meaning faster. Before any Fit: the prior's scores when there is
  // one, else all zeros.
  virtual absl::StatusOr<std::vector<double>> Predict(
      const search::Task& task, const std::vector<search::Config>& configs) = 0;
  // Writes / reads the trained state; errors name the path.
  virtual absl::Status Save(const std::string& path) const = 0;
  virtual absl::Status Load(const std::string& path) = 0;
};

using CostModelFactory =
    std::function<absl::StatusOr<std::unique_ptr<CostModel>>(const CostModelOptions&)>;

// Registration once per name (a repeat fails a check); TESSEL_REGISTER_COST_MODEL at namespace
// scope in the model's .cc, its library linked with alwayslink = 1.
void RegisterCostModel(const std::string& name, CostModelFactory factory);

// A family of models named "<prefix>:<argument>", e.g. "py:package.module" (a model written in
// Python, costmodels/python): the factory gets the argument. Registered once per prefix.
using CostModelFamilyFactory = std::function<absl::StatusOr<std::unique_ptr<CostModel>>(
    const std::string& argument, const CostModelOptions&)>;
void RegisterCostModelFamily(const std::string& prefix, const std::string& argument_name,
                             CostModelFamilyFactory factory);

// The model registered under name (or made by the family of its prefix), or NotFound listing
// the known names.
absl::StatusOr<std::unique_ptr<CostModel>> MakeCostModel(const std::string& name,
                                                         const CostModelOptions& options);
// Sorted names, then each family as "<prefix>:<ARGUMENT>" (e.g. "py:<MODULE>").
std::vector<std::string> CostModelNames();
// Whether MakeCostModel takes this name: a registered one, or a family's prefix and a non-empty
// argument (whether that argument works shows only when the model is made).
bool IsCostModelName(const std::string& name);

}  // namespace tessel::costmodels

#define TESSEL_COST_MODEL_CONCAT_INNER(a, b) a##b
#define TESSEL_COST_MODEL_CONCAT(a, b) TESSEL_COST_MODEL_CONCAT_INNER(a, b)
// TESSEL_REGISTER_COST_MODEL("xgb", MakeXgbModel);
#define TESSEL_REGISTER_COST_MODEL(name, factory)                                             \
  [[maybe_unused]] static const bool TESSEL_COST_MODEL_CONCAT(tessel_cost_model_, __LINE__) = \
      (::tessel::costmodels::RegisterCostModel(name, factory), true)
// TESSEL_REGISTER_COST_MODEL_FAMILY("py", "MODULE", MakePythonModel);
#define TESSEL_REGISTER_COST_MODEL_FAMILY(prefix, argument_name, factory)                \
  [[maybe_unused]] static const bool TESSEL_COST_MODEL_CONCAT(tessel_cost_model_family_, \
                                                              __LINE__) =                \
      (::tessel::costmodels::RegisterCostModelFamily(prefix, argument_name, factory), true)
