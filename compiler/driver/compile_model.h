#pragma once

#include <absl/status/statusor.h>

#include <optional>
#include <string>

#include "compiler/driver/compiled_model.h"
#include "compiler/driver/kernel_groups.h"
#include "compiler/graph/graph.h"
#include "search/records/apply_history_best.h"

// Compile: a graph to a CompiledModel (compiled_model.h), the seam DESIGN.md names
// `Compile(graph, target, log)`.
//
// Pipeline:
//   1. with optimize_graph, the graph rewrites of optimize_graph.h (dead code, constant folding,
//      batch-norm folding, dead code), then the layout pass (below); the model keeps the
//      rewritten graph;
//   2. operator fusion (graph/passes/fuse_ops.h; with optimize_graph and fuse, else every node
//      its own group), then kernel groups (kernel_groups.h): each group one kernel, a single node
//      or a master with its element-wise tail fused into its output stage (fused_tail.h);
//   3. the memory plan of the values the kernels write (graph/passes/plan_memory.h, on the
//      kernel groups), always: it is how the executor allocates, not an optimization of the
//      graph;
//   4. per group, its template (ops/strategy.h: the master's, or the node's), its arguments
//      (graph::OpArgsOf) and the resolved target (compile_target.h) make a search::Task; the
//      task's config is the log's best when it has one that fits the template's space, else the
//      template's fallback. A fused group's task is its master's (a tail does not change the
//      space), so a tuned log applies to fused and unfused kernels alike. Groups with identical
//      tasks and tails share one kernel. Every kernel is instantiated and lowered (in parallel),
//      then all are built into one library;
//   5. graph constants go through the templates' host transforms once, here
//      (kernel_connection.h says how each kernel input is obtained at run time).
//
// With optimize_graph and alter_layout, the layout pass runs after the rewrites: every
// convolution whose template computes in channel blocks gets the blocks of its config (tuned or
// fallback; kernel_config.h), values between such convolutions stay blocked, and layout_transform
// kernels convert at the boundaries. A blocked kernel then reads and writes its blocked values
// as they are, and a residual held in its output's blocks fuses into its tail. Without the pass,
// a blocked kernel's input is packed and its output unpacked by the executor at every call
// (runtime/graph_executor.h), and which fused tails a template takes is decided by measurement
// (kernel_groups.h, TailRulesFor): a full-size tail input (a residual) read in logical NCHW by a
// blocked kernel is a strided gather that costs more than a separate add, so the blocked
// convolution templates stop their tail before it.
namespace tessel::driver {

struct CompileOptions {
  // Threads that instantiate and lower kernels; 0: one per core of this machine.
  int threads = 0;
  // Threads the compiled model will run on: the templates size their parallel loops for them.
  // 0: the target's cores (its -num-cores, else this machine's; target_facts.h).
  int run_threads = 0;
  // false: the graph as given, one kernel per node (the paper's "without graph optimizations",
  // Fig. 14). true: the rewrites of optimize_graph.h, then fusion when `fuse`.
  bool optimize_graph = true;
  // With optimize_graph: whether operators fuse (Fig. 4: fusion on/off with the other passes
  // on). Without optimize_graph it is ignored (nothing fuses).
  bool fuse = true;
  // With optimize_graph: whether convolutions keep the blocked layouts of their kernels between
  // them (graph/passes/alter_layout.h), their blocks those of each kernel's config.
  bool alter_layout = true;
  // With alter_layout: whether an untuned kernel reads its data in the block its producer writes
  // when its template can (ConfigForDataBlock, kernel_config.h); false: every kernel in its own
  // config's blocks (for measuring what following saves).
  bool follow_data_blocks = true;
  // Which fused tails may read a full-size input (a residual) across channel blocks; the
  // default is the measured per-template rule, the others are for measuring it.
  StridedTailInputs strided_tail_inputs = StridedTailInputs::kByTemplate;
  // With fuse: whether a fusion group without a master (element-wise chains) is one kernel led
  // by its first element-wise node (kernel_groups.h); false: node by node (for measuring).
  bool fuse_elementwise_groups = true;
  // An accelerator the model offloads to, as target text (`vdla`), or empty: none. A kernel group
  // of one node whose operator the accelerator's strategy has a template for, with arguments that
  // template takes (its space is defined), is built for the accelerator (its config from the log's
  // records for that target, else the fallback); every other kernel for the main target, whose
  // device runs the model. An offloaded kernel is called through runtime/staged_function.h: its
  // inputs are copied to the accelerator and its outputs back, its parameters once.
  std::string offload = "";
};

// Errors: a bad target or offload target (naming it), an offload with a GPU main target, a node no
// template computes or whose arguments its template rejects (naming the node), a graph pass that
// fails (naming the node), a kernel that fails to lower or build (naming the node and task),
// threads < 0.
absl::StatusOr<CompiledModel> Compile(const graph::Graph& g, const target::Target& target,
                                      const search::ApplyHistoryBest* log,
                                      const CompileOptions& options = {});

}  // namespace tessel::driver
