#include "compiler/ops/output_tail.h"

#include "compiler/te/compute.h"

namespace tessel::ops {

te::Tensor ApplyTail(const te::Tensor& out, const OutputTail& tail, const LogicalIndexFn& logical,
                     const LogicalIndexFn& blocked) {
  return te::compute(
      out.shape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> index(i.begin(), i.end());
        if (!tail.program_index) return tail.apply(out(index), logical(index));
        return tail.apply(out(index), blocked ? blocked(index) : index);
      },
      out.name() + "_tail");
}

}  // namespace tessel::ops
