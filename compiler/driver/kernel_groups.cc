#include "compiler/driver/kernel_groups.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/graph/op_registry.h"
#include "compiler/ops/strategy.h"
#include "compiler/support/status_macros.h"

namespace tessel::driver {
namespace {

using graph::OpPattern;
using graph::ValueId;
using graph::passes::FusionGroup;
using graph::passes::FusionPlan;

bool IsMasterPattern(OpPattern p) {
  return p == OpPattern::kOutEWiseFusable || p == OpPattern::kCommReduce || p == OpPattern::kOpaque;
}

absl::StatusOr<OpPattern> PatternOf(const graph::Node& node) {
  TESSEL_ASSIGN_OR_RETURN(const graph::OpDef* def, graph::FindOpDef(node.op));
  return def->pattern;
}

// The group of `nodes` (increasing) with its master and pattern; inputs and outputs are filled
// for the whole plan at the end (passes::FillGroupInputsAndOutputs).
absl::StatusOr<FusionGroup> MakeGroup(const graph::Graph& g, std::vector<int> nodes) {
  FusionGroup group;
  group.nodes = std::move(nodes);
  for (int n : group.nodes) {
    TESSEL_ASSIGN_OR_RETURN(OpPattern p, PatternOf(g.nodes[static_cast<size_t>(n)]));
    group.pattern = std::max(group.pattern, p);
    if (IsMasterPattern(p)) group.master = n;
  }
  return group;
}

// Whether the values made by `prefix` (a subset of a group) and needed outside it are exactly
// one, the output of its last node.
bool HasSingleOutput(const graph::Graph& g, const std::vector<int>& prefix,
                     const std::vector<std::vector<int>>& consumers,
                     const std::vector<bool>& is_output) {
  auto inside = [&](int n) { return std::find(prefix.begin(), prefix.end(), n) != prefix.end(); };
  for (int n : prefix) {
    for (ValueId id : g.nodes[static_cast<size_t>(n)].outputs) {
      const std::vector<int>& readers = consumers[static_cast<size_t>(id)];
      bool needed = is_output[static_cast<size_t>(id)] || readers.empty();
      for (int r : readers) needed = needed || !inside(r);
      if (needed && n != prefix.back()) return false;
    }
  }
  return true;
}

// Whether node `lead` reads a value made by a node of `run` (then it cannot compute the run: the
// kernel's inputs are its inputs, taken from outside).
bool ReadsFromRun(const graph::Graph& g, int lead, const std::vector<int>& run) {
  for (ValueId id : g.nodes[static_cast<size_t>(lead)].inputs) {
    const graph::Value& v = g.value(id);
    if (v.kind == graph::ValueKind::kNodeOutput &&
        std::find(run.begin(), run.end(), v.node) != run.end()) {
      return true;
    }
  }
  return false;
}

}  // namespace

// The blocked templates (output NCHW[x]c) read a logical NCHW residual with a gather per output
// vector; a separate add kernel (plus the activation after it) costs less at the sizes measured.
// fused_tail_bench, 2 threads, fallback configs, tail bias_relu_residual against no tail:
//   conv2d_winograd.x86 C2 +0.044 ms (x1.11), C6 +0.025 (x1.09), C9 +0.014 (x1.05),
//   C12 +0.052 (x1.06); conv2d_nchwc.x86 C3 +0.044 (x1.38), C4 +0.029 (x1.05);
//   depthwise_conv2d_nchwc.x86 128x56x56 +0.084 (x2.5), 512x14x14 +0.025 (x2.3);
//   conv2d_transpose_nchwc.x86 256->128 16x16 s2 +0.14 (x1.03);
// against about 0.01-0.02 ms for a separate add and 0.005-0.015 ms for a relu of those outputs
// (model_bench profiles). ResNet-18 as a whole: 14.28 ms without such tails, 14.56 ms with them
// (model_bench --variants=strided_never,optimized, interleaved, median of 9). The same residual
// blocked (fused_tail_bench --block=16) costs x1.04 on C2: a layout pass that keeps such inputs
// blocked makes them worth fusing. Templates whose output stage runs in logical order (grouped
// NCHW convolution, dense, matmul, pooling) read such an input contiguously and take it.
TailRules TailRulesFor(const std::string& template_name) {
  static const char* const kBlocked[] = {"conv2d_nchwc.x86", "conv2d_winograd.x86",
                                         "depthwise_conv2d_nchwc.x86",
                                         "conv2d_transpose_nchwc.x86"};
  TailRules rules;
  for (const char* name : kBlocked) {
    if (template_name == name) rules.channel_strided_inputs = false;
  }
  return rules;
}

absl::StatusOr<FusedTail> RebuildTail(const graph::Graph& g, int master,
                                      const std::vector<int>& nodes,
                                      const target::TargetFacts& facts) {
  const graph::Node& m = g.nodes.at(static_cast<size_t>(master));
  TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, graph::OpArgsOf(g, m));
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::SelectTemplate(m.op, args, facts));
  if (!t->instantiate_with_tail) {
    return absl::FailedPreconditionError(absl::StrCat(t->name, " takes no tail"));
  }
  return BuildFusedTail(g, master, nodes, TailRules{.channel_strided_inputs = true});
}

absl::StatusOr<KernelGroups> PlanKernelGroups(const graph::Graph& g, const FusionPlan& fusion,
                                              const target::TargetFacts& facts,
                                              StridedTailInputs strided, bool lead_elementwise) {
  std::vector<bool> is_output(g.values.size(), false);
  for (ValueId id : g.outputs) is_output[static_cast<size_t>(id)] = true;
  const std::vector<std::vector<int>> consumers = g.Consumers();

  KernelGroups out;
  auto add = [&](std::vector<int> nodes, int lead, std::optional<FusedTail> tail) -> absl::Status {
    TESSEL_ASSIGN_OR_RETURN(FusionGroup group, MakeGroup(g, std::move(nodes)));
    out.plan.groups.push_back(std::move(group));
    out.leads.push_back(lead);
    out.tails.push_back(std::move(tail));
    return absl::OkStatus();
  };
  // The template computing node n, or an error naming the node.
  auto template_of = [&](int n) -> absl::StatusOr<const ops::Template*> {
    const graph::Node& node = g.nodes[static_cast<size_t>(n)];
    TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, graph::OpArgsOf(g, node));
    absl::StatusOr<const ops::Template*> t = ops::SelectTemplate(node.op, args, facts);
    if (!t.ok()) {
      return absl::Status(t.status().code(), absl::StrCat("node '", node.name, "' (", node.op,
                                                          "): ", t.status().message()));
    }
    return *t;
  };
  for (const FusionGroup& group : fusion.groups) {
    const std::vector<int>& nodes = group.nodes;
    // The kernel of the group's nodes [begin, end) led by `lead` with `tail` (end 0: none).
    size_t begin = 0, end = 0;
    int lead = -1;
    std::optional<FusedTail> tail;
    // Tries runs [first, e) led by node nodes[at], longest first.
    auto try_lead = [&](size_t first, size_t at, const ops::Template& t, const TailRules& rules) {
      for (size_t e = nodes.size(); t.instantiate_with_tail && e > at + 1; --e) {
        const std::vector<int> run(nodes.begin() + static_cast<long>(first),
                                   nodes.begin() + static_cast<long>(e));
        if (ReadsFromRun(g, nodes[at], run) || !HasSingleOutput(g, run, consumers, is_output)) {
          continue;
        }
        absl::StatusOr<FusedTail> built = BuildFusedTail(g, nodes[at], run, rules);
        if (!built.ok()) continue;
        begin = first, end = e, lead = nodes[at];
        tail = *std::move(built);
        return true;
      }
      return false;
    };
    if (nodes.size() > 1 && group.master >= 0) {
      TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, template_of(group.master));
      TailRules rules = TailRulesFor(t->name);
      if (strided != StridedTailInputs::kByTemplate) {
        rules.channel_strided_inputs = strided == StridedTailInputs::kAlways;
      }
      const size_t at =
          static_cast<size_t>(std::find(nodes.begin(), nodes.end(), group.master) - nodes.begin());
      try_lead(0, at, *t, rules);
    } else if (nodes.size() > 1 && lead_elementwise) {
      // No master: the first element-wise node that can lead a run (its inputs come from outside
      // the run, its output is the run's shape) computes it; the run's other nodes, before it
      // (from the group's first) or from it on, are its tail.
      for (size_t at = 0; at + 1 < nodes.size(); ++at) {
        if (!IsTailOperator(g.nodes[static_cast<size_t>(nodes[at])].op)) continue;
        TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, template_of(nodes[at]));
        if (try_lead(0, at, *t, TailRules{}) || try_lead(at, at, *t, TailRules{})) break;
      }
    }
    for (size_t j = 0; j < begin; ++j) TESSEL_RETURN_IF_ERROR(add({nodes[j]}, nodes[j], {}));
    if (end > 0) {
      TESSEL_RETURN_IF_ERROR(add(std::vector<int>(nodes.begin() + static_cast<long>(begin),
                                                  nodes.begin() + static_cast<long>(end)),
                                 lead, std::move(tail)));
    }
    for (size_t j = std::max(begin, end); j < nodes.size(); ++j) {
      TESSEL_RETURN_IF_ERROR(add({nodes[j]}, nodes[j], {}));
    }
  }
  out.plan.group_of.assign(g.nodes.size(), -1);
  for (size_t k = 0; k < out.plan.groups.size(); ++k) {
    for (int n : out.plan.groups[k].nodes) {
      out.plan.group_of[static_cast<size_t>(n)] = static_cast<int>(k);
    }
  }
  graph::passes::FillGroupInputsAndOutputs(g, out.plan);
  if (absl::Status s = graph::passes::CheckFusionPlan(g, out.plan); !s.ok()) {
    return absl::InternalError(absl::StrCat("kernel groups: ", s.message()));
  }
  return out;
}

}  // namespace tessel::driver
