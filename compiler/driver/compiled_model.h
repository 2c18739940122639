#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/ops/target_facts.h"
#include "compiler/ops/template.h"
#include "compiler/runtime/graph_executor.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// A compiled model (compile_model.h's Compile): the graph, one library with a kernel per distinct
// (task, config), the parameters its kernels take (graph constants after the templates' host
// transforms), and per node how its kernel's inputs and outputs connect to the graph's values.
// Saved to a folder and loaded back without lowering or compiling anything.
namespace tessel::driver {

// One function of the library: a task and the config it was built with.
struct CompiledKernel {
  std::string function;  // its name in the library
  search::Task task;
  search::Config config;
  bool tuned = false;  // the config came from a tuning log (else: the template's fallback)
};

// One graph node (CompiledModel::nodes[i] is graph.nodes[i]).
struct CompiledNode {
  int kernel = -1;  // index into CompiledModel::kernels
  // How the kernel's inputs are obtained; kParameter indices are into CompiledModel::parameters.
  std::vector<runtime::KernelArg> args;
  std::vector<runtime::TensorDesc> results;  // the kernel's outputs
  bool use_finish = false;
  // The program's host transforms, set where an arg is kPrepare or use_finish.
  ops::HostTransform prepare;
  ops::HostTransform finish;
};

// Wall time of each phase of Compile, in seconds.
struct CompileStats {
  double select = 0;       // templates, tasks, tuned-config lookup
  double instantiate = 0;  // templates instantiated and lowered (in parallel)
  double build = 0;        // LLVM code generation, optimization, object, link
  double parameters = 0;   // host transforms of the constants (probing included)
  double total = 0;
  int threads = 1;  // threads that instantiated and lowered
};

struct CompiledModel {
  graph::Graph graph;
  std::string target;      // resolved (compile_target.h): the tasks' target
  ops::TargetFacts facts;  // what the templates were instantiated for
  runtime::Module module;
  std::vector<CompiledKernel> kernels;
  std::vector<CompiledNode> nodes;
  std::vector<runtime::NDArray> parameters;
  // One line per task without a tuned config (or one line when no log was given).
  std::vector<std::string> warnings;
  CompileStats stats;  // not saved

  int NumTuned() const;

  // Writes the model to folder `dir`:
  //   model.json      format version, target, facts, kernels (task, config), nodes (argument
  //                   sources), parameter and constant files, warnings
  //   graph.json      graph::ToJson
  //   kernels.so      the library (linked with the system's `cc`)
  //   constants/K.npy the graph's constants, parameters/K.npy the parameters that are not
  //                   constants as they are
  // The folder is written under a temporary name beside it and renamed, so `dir` is either the
  // old contents or the complete new ones. An existing `dir` is replaced only when it holds a
  // compiled model (a model.json); otherwise that is an error naming it.
  absl::Status Save(const std::string& dir) const;

  // Reads a folder that Save wrote; the host transforms that nodes need are re-instantiated from
  // their templates (no lowering or compiling). Errors name the file that is missing or wrong.
  static absl::StatusOr<CompiledModel> Load(const std::string& dir);
};

// An executor over the model's library and parameters (runtime/graph_executor.h).
absl::StatusOr<runtime::GraphExecutor> MakeExecutor(const CompiledModel& model,
                                                    const runtime::ExecutorOptions& options = {});

}  // namespace tessel::driver
