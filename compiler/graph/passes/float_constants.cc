#include "compiler/graph/passes/float_constants.h"

#include "compiler/runtime/dltype.h"

namespace tessel::graph::passes {

bool IsFloat32(const TensorType& t) { return runtime::SameDLType(t.dtype, kFloat32); }

bool IsFloat32Constant(const Graph& g, ValueId id) {
  return g.value(id).kind == ValueKind::kConstant && IsFloat32(g.type(id));
}

}  // namespace tessel::graph::passes
