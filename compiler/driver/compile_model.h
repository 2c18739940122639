#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/driver/compiled_model.h"
#include "compiler/graph/graph.h"
#include "search/records/apply_history_best.h"

// Compile: a graph to a CompiledModel (compiled_model.h), the seam DESIGN.md names
// `Compile(graph, target, log)`.
//
// Per node: the operator's x86 template (conv2d: the strategy of ops/x86/conv2d_strategy.h; other
// operators: their one template), its arguments (graph::OpArgsOf) and the resolved target
// (compile_target.h) make a search::Task; the task's config is the log's best when it has one that
// fits the template's space, else the template's fallback. Nodes with identical tasks share one
// kernel. Every kernel is instantiated and lowered (in parallel), then all are built into one
// library. Graph constants go through the templates' host transforms once, here
// (kernel_connection.h says how each kernel input is obtained at run time).
//
// Passes (fusion, layout) are not run here: the graph is compiled as given.
namespace tessel::driver {

struct CompileOptions {
  // Threads that instantiate and lower kernels; 0: one per core of this machine.
  int threads = 0;
};

// Errors: a bad target (naming it), a node no template computes or whose arguments its template
// rejects (naming the node), a kernel that fails to lower or build (naming the node and task).
absl::StatusOr<CompiledModel> Compile(const graph::Graph& g, const std::string& target,
                                      const search::ApplyHistoryBest* log,
                                      const CompileOptions& options = {});

}  // namespace tessel::driver
