#pragma once

#include <absl/status/statusor.h>

#include <optional>
#include <vector>

#include "compiler/driver/fused_tail.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/passes/fuse_ops.h"
#include "compiler/target/target_facts.h"

// From a fusion plan (graph/passes/fuse_ops.h) to the kernels Compile builds: a fusion plan
// whose every group is one kernel, either a single node (its operator's template) or a lead
// node with a tail (fused_tail.h: the lead's template, instantiate_with_tail).
//
// A fusion group of several nodes is one kernel when a lead's template takes a tail and the
// group's other nodes make a tail the template's rule allows (TailRulesFor). The lead is the
// group's master when it has one; a group without (element-wise and broadcast chains: LSTM gates,
// add -> relu, the element-wise chains of a transformer) is led by its first element-wise node
// whose output is the group's (the element-wise templates take tails over views: ops/x86
// elementwise_template.cc). Otherwise the longest run of its nodes (in their order) that starts
// at its first node (with a master) or at the lead (without) and is such a kernel, with a single
// output, stays one, and the rest of the group is compiled node by node; failing that, the
// whole group is. Compiled node by node, then:
//   - injective nodes (reshape, pad, transpose, concatenate, batch_norm, ...): a tail cannot
//     express them (fused_tail.h's list), nor groups with several outputs;
//   - masters whose template takes no tail (none of the x86 complex-out-fusable ones).
namespace tessel::driver {

// Which tails may read a channel-strided input (fused_tail.h's TailRules).
enum class StridedTailInputs {
  kByTemplate,  // TailRulesFor: the measured rule
  kNever,       // no template (for measuring the rule)
  kAlways,      // every template (likewise)
};

struct KernelGroups {
  // Each group one kernel; a valid fusion plan of the graph (CheckFusionPlan).
  graph::passes::FusionPlan plan;
  // Per group: the node whose template computes it (its only node, or the lead of its tail).
  std::vector<int> leads;
  // Per group: its tail when it has several nodes (its lead computes it), else nullopt.
  std::vector<std::optional<FusedTail>> tails;
};

// What the template named `template_name` may fuse when its output is logical NCHW (with the
// layout pass, a blocked output's tail reads its inputs in the same blocks and is never
// channel-strided, so it takes a residual). Decided by measurement
// (compiler/ops/x86/fused_tail_bench and whole networks; the numbers are in kernel_groups.cc):
// the templates with a blocked output stage (conv2d_nchwc, conv2d_winograd,
// depthwise_conv2d_nchwc, conv2d_transpose_nchwc) take no channel-strided tail input (a
// residual: the group's kernel ends before the node that reads it, which runs on its own); the
// others do.
TailRules TailRulesFor(const std::string& template_name);

// `lead_elementwise`: false compiles groups without a master node by node (for measuring).
// Errors: a node no template computes (naming it), an internal error when the result is not a
// fusion plan of g.
absl::StatusOr<KernelGroups> PlanKernelGroups(
    const graph::Graph& g, const graph::passes::FusionPlan& fusion,
    const target::TargetFacts& facts, StridedTailInputs strided = StridedTailInputs::kByTemplate,
    bool lead_elementwise = true);

// The tail of a group of `nodes` led by `master` (the tail KernelGroups holds), rebuilt
// for a loaded model (whatever rule chose it). Errors: the group is not a tail group (a
// corrupted model).
absl::StatusOr<FusedTail> RebuildTail(const graph::Graph& g, int master,
                                      const std::vector<int>& nodes,
                                      const target::TargetFacts& facts);

}  // namespace tessel::driver
