#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <optional>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/passes/plan_memory.h"
#include "compiler/ops/template.h"
#include "compiler/runtime/graph_executor.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// A compiled model (compile_model.h's Compile): the graph it compiled (after the graph
// optimizations), one library with a kernel per distinct (task, tail, config), the parameters its
// kernels take (graph constants after the templates' host transforms), the steps that run the
// kernels over the graph's values, and the memory plan that places those values. Saved to a
// folder and loaded back without lowering or compiling anything.
namespace tessel::driver {

// One function of the library: a task and the config it was built with, and the tail fused
// into its output stage, if any. The task is the master's: a tail does not change the template's
// space, so a tuning log's config for the task applies with or without one.
struct CompiledKernel {
  std::string function;  // its name in the library
  search::Task task;
  search::Config config;
  bool tuned = false;      // the config came from a tuning log (else: the template's fallback)
  std::string tail;        // the fused tail's signature (fused_tail.h); empty: none
  bool offloaded = false;  // built for CompiledModel::offload (its task's target), not `facts`
};

// One kernel call: a group of graph nodes (kernel_groups.h) computed by one kernel.
struct CompiledStep {
  std::vector<int> nodes;  // graph node indices, increasing
  int master = -1;         // the node whose template the kernel is (its lead, kernel_groups.h)
  int kernel = -1;         // index into CompiledModel::kernels
  // The kernel's logical inputs: the master's inputs, then its tail's inputs (values read by
  // the tail from outside the group); and the values it gives (the group's outputs).
  std::vector<graph::ValueId> inputs;
  std::vector<graph::ValueId> outputs;
  // How the kernel's inputs are obtained; kParameter indices are into CompiledModel::parameters.
  std::vector<runtime::KernelArg> args;
  std::vector<runtime::TensorDesc> results;  // the kernel's outputs
  runtime::ResultMode result_mode = runtime::ResultMode::kDirect;
  std::vector<runtime::TensorDesc> blocked;  // kUnpackChannels: each result's 5-d view
  // The program's host transforms, set where an arg is kPrepare or result_mode is kFinish.
  ops::HostTransform prepare;
  ops::HostTransform finish;
};

// Wall time of each phase of Compile, in seconds.
struct CompileStats {
  double optimize = 0;     // graph passes (dead code, constant and batch-norm folding)
  double select = 0;       // fusion, kernel groups, memory plan, templates, tasks, tuned configs
  double instantiate = 0;  // templates instantiated and lowered (in parallel)
  double build = 0;        // LLVM code generation, optimization, object, link
  double parameters = 0;   // host transforms of the constants (probing included)
  double total = 0;
  int threads = 1;  // threads that instantiated and lowered
};

struct CompiledModel {
  graph::Graph graph;  // as compiled: after the graph optimizations when they ran
  // What the templates were instantiated for; facts.target is the resolved target
  // (target/host_target.h), the tasks' target.
  target::TargetFacts facts;
  runtime::Module module;
  // With an offload target (compile_model.h): its facts and the module of the offloaded kernels.
  std::optional<target::TargetFacts> offload;
  runtime::Module offload_module;
  std::vector<CompiledKernel> kernels;
  std::vector<CompiledStep> steps;  // in the order they run
  std::vector<runtime::NDArray> parameters;
  // Where the values the steps write live (graph/passes/plan_memory.h, over the steps as fusion
  // groups): the executor allocates one buffer per storage. peak_bytes against naive_bytes is
  // what sharing saves.
  graph::passes::MemoryPlan memory;
  // One line per task without a tuned config (or one line when no log was given).
  std::vector<std::string> warnings;
  CompileStats stats;  // not saved

  int NumTuned() const;
  int NumOffloaded() const;
  // Steps with a fused tail (several graph nodes in one kernel).
  int NumFusedSteps() const;

  // Writes the model to folder `dir`:
  //   model.json      format version, target, facts, kernels (task, config, tail), steps (nodes,
  //                   values, argument sources), memory plan, parameter and constant files,
  //                   warnings
  //   graph.json      graph::ToJson
  //   kernels.so      the library (linked with the system's `cc`; kernel_library.h names the
  //                   file of each target kind)
  //   constants/K.npy the graph's constants, parameters/K.npy the parameters that are not
  //                   constants as they are
  // A model with an offload is format version 3 (else 2, which readers of version 2 still read),
  // and adds
  //   model.json      "offload": {"facts": its facts (target/facts_json.h), "library": the file
  //                   of its module, present when a kernel is offloaded}, and each kernel's
  //                   "offloaded" flag
  //   kernels.vdla.json  the offloaded kernels' module (for a vdla offload; its Save's file)
  // The folder is written under a temporary name beside it and renamed, so `dir` is either the
  // old contents or the complete new ones. An existing `dir` is replaced only when it holds a
  // compiled model (a model.json); otherwise that is an error naming it.
  absl::Status Save(const std::string& dir) const;

  // Reads a folder that Save wrote; the host transforms that steps need are re-instantiated from
  // their templates, with their tails (no lowering or compiling), an offloaded kernel's for the
  // offload target: the templates of every target in the folder must be linked. Errors name the
  // file that is missing or wrong (an offloaded kernel without an offload library, a malformed
  // offload entry: model.json; a missing or malformed offload module: its file).
  static absl::StatusOr<CompiledModel> Load(const std::string& dir);
};

// An executor over the model's library and parameters (runtime/graph_executor.h); each step of an
// offloaded kernel calls it staged (runtime/staged_function.h), its parameters resident.
absl::StatusOr<runtime::GraphExecutor> MakeExecutor(const CompiledModel& model,
                                                    const runtime::ExecutorOptions& options = {});

}  // namespace tessel::driver
