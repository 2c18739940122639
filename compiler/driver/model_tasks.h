#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/driver/compile_model.h"
#include "compiler/graph/graph.h"
#include "search/task/task.h"

// The tuning tasks of a model: the tasks Compile (compile_model.h) looks up in a tuning log when
// it compiles the same graph for the same target with the same options, restricted to those worth
// tuning. What `tessel tune MODEL` and the end-to-end experiments tune (with
// search/tuner/tune_tasks.h) before they compile.
//
// A task is built exactly as Compile builds a kernel's: the optimized graph (optimize_graph.h,
// when options.optimize_graph), per node its template (ops/strategy.h), its arguments
// (graph::OpArgsOf) and the resolved target (compile_target.h). A fused group's task is its
// master's, so fusion does not change the tasks and options.fuse is not read.
namespace tessel::driver {

struct ModelTask {
  search::Task task;
  // The names of the nodes (of the graph Compile compiles: the optimized one when
  // options.optimize_graph) this task computes, in graph order; at least one.
  std::vector<std::string> nodes;
};

// One task per distinct Task::Key of the nodes whose operator is complex-out-fusable or opaque
// (graph::OpPattern: conv2d, dense, pools, rnn cells, ...) and whose template's space has more
// than one point, in order of first use. Element-wise and injective nodes and single-config
// templates are left out: there is nothing to tune.
//
// Errors: those Compile gives for the same inputs before it builds anything: an invalid graph, a
// bad target (naming it), a graph pass that fails, a node no template computes or whose
// arguments its template rejects (naming the node).
absl::StatusOr<std::vector<ModelTask>> ExtractTasks(const graph::Graph& g,
                                                    const target::Target& target,
                                                    const CompileOptions& options = {});

}  // namespace tessel::driver
