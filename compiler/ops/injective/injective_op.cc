#include "compiler/ops/injective/injective_op.h"

#include "compiler/ir/dl_type.h"

namespace tessel::ops::injective {

TensorSpec LogicalOutput(const InjectiveOp& op, const std::vector<int64_t>& shape) {
  return TensorSpec{"out", op.logical_output_shape.empty() ? shape : op.logical_output_shape,
                    ir::ToDLType(op.output.dtype())};
}

CollapsedViews CollapseBroadcast(const std::vector<int64_t>& out,
                                 const std::vector<std::vector<int64_t>>& operands) {
  const size_t rank = out.size();
  CollapsedViews v;
  v.operands.resize(operands.size());
  std::vector<bool> last_pattern;  // per operand: present along the current run
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    std::vector<bool> pattern;
    for (const std::vector<int64_t>& shape : operands) {
      const size_t offset = rank - shape.size();
      pattern.push_back(d >= offset && shape[d - offset] == out[d]);
    }
    if (!v.out.empty() && pattern == last_pattern) {
      v.out.back() *= out[d];
      for (size_t i = 0; i < operands.size(); ++i) {
        if (pattern[i]) v.operands[i].back() *= out[d];
      }
    } else {
      v.out.push_back(out[d]);
      for (size_t i = 0; i < operands.size(); ++i) v.operands[i].push_back(pattern[i] ? out[d] : 1);
    }
    last_pattern = std::move(pattern);
  }
  if (v.out.empty()) {
    v.out = {1};
    for (std::vector<int64_t>& o : v.operands) o = {1};
  }
  return v;
}

}  // namespace tessel::ops::injective
