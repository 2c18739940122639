#include "compiler/graph/passes/dead_code.h"

#include <vector>

#include "compiler/graph/passes/rewriter.h"

namespace tessel::graph::passes {

absl::StatusOr<Graph> EliminateDeadCode(const Graph& g) {
  // A node is live when one of its outputs is a graph output or an input of a live node; nodes
  // are in topological order, so one backward sweep decides.
  std::vector<bool> value_live(g.values.size(), false);
  for (ValueId id : g.outputs) value_live[static_cast<size_t>(id)] = true;
  std::vector<bool> node_live(g.nodes.size(), false);
  for (size_t n = g.nodes.size(); n-- > 0;) {
    for (ValueId id : g.nodes[n].outputs) {
      if (value_live[static_cast<size_t>(id)]) node_live[n] = true;
    }
    if (!node_live[n]) continue;
    for (ValueId id : g.nodes[n].inputs) value_live[static_cast<size_t>(id)] = true;
  }
  Rewriter r(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (node_live[n]) r.Copy(g.nodes[n]);
  }
  return r.Finish();
}

}  // namespace tessel::graph::passes
