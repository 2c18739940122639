#include "compiler/driver/model_tasks.h"

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>

#include "compiler/driver/kernel_config.h"
#include "compiler/driver/optimize_graph.h"
#include "compiler/graph/op_registry.h"
#include "compiler/ops/strategy.h"
#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "compiler/target/target_facts.h"

namespace tessel::driver {
namespace {

// The node's error, named as Compile names it.
absl::Status AtNode(const graph::Node& node, const absl::Status& s) {
  return absl::Status(s.code(),
                      absl::StrCat("node '", node.name, "' (", node.op, "): ", s.message()));
}

}  // namespace

absl::StatusOr<std::vector<ModelTask>> ExtractTasks(const graph::Graph& g,
                                                    const target::Target& target,
                                                    const CompileOptions& options) {
  TESSEL_RETURN_IF_ERROR(graph::Verify(g));
  TESSEL_ASSIGN_OR_RETURN(const target::Target resolved, target::ResolveModelTarget(target));
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(resolved));
  if (options.run_threads > 0) facts.cores = options.run_threads;
  graph::Graph optimized;
  if (options.optimize_graph) {
    TESSEL_ASSIGN_OR_RETURN(optimized, OptimizeGraph(g));
  }
  const graph::Graph& og = options.optimize_graph ? optimized : g;

  std::vector<ModelTask> tasks;
  absl::flat_hash_map<std::string, size_t> by_key;
  for (const graph::Node& node : og.nodes) {
    absl::StatusOr<const graph::OpDef*> def = graph::FindOpDef(node.op);
    if (!def.ok()) return AtNode(node, def.status());
    absl::StatusOr<nlohmann::json> args = graph::OpArgsOf(og, node);
    if (!args.ok()) return AtNode(node, args.status());
    absl::StatusOr<const ops::Template*> t = ops::SelectTemplate(node.op, *args, facts);
    if (!t.ok()) return AtNode(node, t.status());
    absl::StatusOr<search::ConfigSpace> space = (*t)->space(*args, facts);
    if (!space.ok()) return AtNode(node, space.status());
    if (!WorthTuning((*def)->pattern, *space)) continue;
    search::Task task{.template_name = (*t)->name, .args = *std::move(args), .target = resolved};
    auto [it, inserted] = by_key.try_emplace(task.Key(), tasks.size());
    if (inserted) tasks.push_back({.task = std::move(task), .nodes = {}});
    tasks[it->second].nodes.push_back(node.name);
  }
  return tasks;
}

}  // namespace tessel::driver
