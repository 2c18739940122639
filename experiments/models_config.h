#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/target/target.h"
#include "experiments/config.h"

// An experiment that compares compiled models (`kind: models`): networks of workloads/networks,
// each run by every variant (libtorch, or Tessel with some graph optimizations), timed
// interleaved, each variant in a process of its own (compare_models.h), optionally after tuning
// every task of every network. Read from YAML; the schema, its keys and their defaults are in experiments/README.md.
//
// Mistakes are the tuning configs' style of error (config.h): one InvalidArgument
// "<path>:<line>: <key>: <problem>".
namespace tessel::experiments {

struct NetworkSpec {
  std::string name;  // a network or fusion workload of workloads/networks
  int line = 0;
};

struct VariantSpec {
  std::string name;       // unique; a CSV cell and a bar's label
  bool libtorch = false;  // `baseline: libtorch`
  // Tessel's driver::CompileOptions (without libtorch).
  bool optimize_graph = true;
  bool fuse = true;
  int line = 0;
};

// `tuning:`: every task of every network tuned into <out>/logs/<network>.jsonl before timing,
// and the Tessel variants compiled with that log.
struct ModelsTuningSpec {
  int trials = 0;                  // per task
  std::string cost_model = "xgb";  // "" for a black-box explorer
  std::string explorer = "sa";
  nlohmann::json explorer_params = nlohmann::json::object();
  int early_stopping = 0;  // per task; 0: never
  uint64_t seed = 0;
  bool transfer = true;      // later tasks of a template learn from the earlier ones' records
  int model_threads = 1;     // cost-model training and features
  MeasureSpec measure = {};  // how candidates are measured (the tuning kind's `measure:`)
  int line = 0;
};

struct ModelsConfig {
  std::string name;             // results go to results/<name>/<cpu>/ by default
  // As written (parsed when read); the runner adds -mcpu=native and FMA contraction.
  target::Target target = target::Target::Llvm();
  int threads = 1;              // Tessel's and libtorch's, also of the tuning measurements
  int64_t batch = 1;
  int repeat = 7;                 // timed rounds, >= 5
  int warmup = 3;                 // untimed rounds first
  double min_repeat_ms = 50;      // each repeat of a variant lasts at least this long
  std::string chart = "speedup";  // speedup | ms: the bar chart's values
  std::vector<NetworkSpec> networks;
  std::vector<VariantSpec> variants;
  std::optional<ModelsTuningSpec> tuning;
  double atol = 2e-3;  // the outputs' tolerance against the reference
  double rtol = 2e-3;

  std::string source_path;  // the file it was read from ("" for text)
  std::string source_text;  // the YAML as written, for the report
};

// Parses a config of kind `models`. `path` is only used in messages; `known` supplies the network
// names (and which have a libtorch version), cost models and explorers.
absl::StatusOr<ModelsConfig> ParseModelsConfig(const std::string& text, const std::string& path,
                                               const KnownNames& known);

}  // namespace tessel::experiments
