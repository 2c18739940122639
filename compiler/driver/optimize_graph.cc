#include "compiler/driver/optimize_graph.h"

#include "compiler/graph/passes/dead_code.h"
#include "compiler/graph/passes/fold_batch_norm.h"
#include "compiler/graph/passes/fold_constants.h"
#include "compiler/graph/passes/fuse_layer_norm.h"
#include "compiler/graph/passes/sink_reshapes.h"
#include "compiler/support/status_macros.h"

namespace tessel::driver {

absl::StatusOr<graph::Graph> OptimizeGraph(const graph::Graph& g) {
  TESSEL_ASSIGN_OR_RETURN(graph::Graph live, graph::passes::EliminateDeadCode(g));
  TESSEL_ASSIGN_OR_RETURN(graph::Graph folded, graph::passes::FoldConstants(live));
  TESSEL_ASSIGN_OR_RETURN(graph::Graph no_bn, graph::passes::FoldBatchNorm(folded));
  TESSEL_ASSIGN_OR_RETURN(graph::Graph sunk, graph::passes::SinkReshapes(no_bn));
  TESSEL_ASSIGN_OR_RETURN(graph::Graph normed, graph::passes::FuseLayerNorm(sunk));
  return graph::passes::EliminateDeadCode(normed);
}

}  // namespace tessel::driver
