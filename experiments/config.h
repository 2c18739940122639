#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/target/target.h"

// An experiment: which workloads to tune, with which strategies (cost model x explorer), for how
// many trials and seeds, measured how, against which baseline. Read from YAML; the schema, its
// keys and their defaults are in experiments/README.md.
//
// Every mistake in a config is one InvalidArgument "<path>:<line>: <key>: <problem>" naming the
// key as a path into the document (`strategies[1].cost_model`) and its 1-based YAML line: a
// missing or unknown key, a wrong type, a bad number, an unknown workload, template, cost model or
// explorer, a repeated name.
namespace tessel::experiments {

struct WorkloadSpec {
  std::string name;           // a Table 2 layer ("C6") or the config's own name for `args`
  std::string template_name;  // "" when the config does not say (see ExperimentConfig)
  ops::OpArgs args;           // the operator's arguments (a Table 2 layer's conv2d args)
  bool table2 = false;        // name is a Table 2 layer and args are its
  int line = 0;               // where it is written, for later errors
};

struct StrategySpec {
  std::string name;        // unique; used in file names and plots
  std::string cost_model;  // a registered cost model, or "" for a black-box explorer
  std::string explorer;    // a registered explorer
  nlohmann::json explorer_params = nlohmann::json::object();
  std::string features = "itervar";  // itervar | knob | curve
  int plan_size = 64;
  double epsilon = 0.05;
  bool diversity = false;
  // Tuning logs, or directories of them (every *.jsonl below), whose records of other tasks of
  // the workload's template the cost model is trained on before the first trial (transfer
  // learning, TunerOptions::transfer_from). Relative to the working directory; "<cpu>" stands for
  // the target's CPU name, as in results/<name>/<cpu>.
  std::vector<std::string> transfer_from = {};
  int line = 0;
};

struct MeasureSpec {
  int repeat = 3;               // timed repeats per candidate
  int number = 1;               // runs per repeat (the starting point when min_repeat_ms > 0)
  double min_repeat_ms = 50;    // grow `number` until a repeat lasts this long
  double timeout_seconds = 10;  // per candidate, for building and for running each
  int build_workers = 2;        // candidates built at once
  bool flush_cache = false;
  bool check_correctness = true;  // against libtorch
  // Tolerances of the correctness check; < 0: 1e-2 for Winograd templates (their transforms
  // round), 1e-3 otherwise.
  double atol = -1;
  double rtol = -1;
};

struct ExperimentConfig {
  std::string name;  // results go to results/<name>/<cpu>/ by default
  // As written (parsed when read); the runner adds -mcpu=native and FMA contraction.
  target::Target target = target::Target::Llvm();
  int threads = 1;        // threads of the measured programs and of oneDNN
  int model_threads = 1;  // threads of cost-model training and feature extraction
  int trials = 0;         // per workload x strategy x seed
  std::vector<uint64_t> seeds = {0};
  std::vector<WorkloadSpec> workloads;
  // The template of workloads that name none; "" lets the x86 strategy choose for Table 2 layers.
  std::string template_name;
  std::vector<StrategySpec> strategies;
  std::vector<std::string> baselines;  // "onednn" or nothing
  MeasureSpec measure;
  int early_stopping = 0;  // 0: never

  std::string source_path;  // the file it was read from ("" for text)
  std::string source_text;  // the YAML as written, for the report
};

// The names a config may refer to (experiments/registered_names.h: those linked into the binary).
struct KnownNames {
  std::vector<std::string> cost_models;
  std::vector<std::string> explorers;
  std::vector<std::string> templates;
  std::vector<std::string> networks;        // workloads/networks (models experiments)
  std::vector<std::string> torch_networks;  // of them, those with a libtorch version
};

// Parses a config of a tuning experiment (`kind: tuning`, the default; models_config.h reads the
// other kind and load_config.h either) written in YAML. `path` is only used in messages.
absl::StatusOr<ExperimentConfig> ParseExperimentConfig(const std::string& text,
                                                       const std::string& path,
                                                       const KnownNames& known);

// Reads and parses the file; NotFound naming the path when it cannot be read.
absl::StatusOr<ExperimentConfig> LoadExperimentConfig(const std::string& path,
                                                      const KnownNames& known);

}  // namespace tessel::experiments
