#include "compiler/ops/output_tail.h"

#include "compiler/te/compute.h"

namespace tessel::ops {

te::Tensor ApplyTail(const te::Tensor& out, const OutputTail& tail, const LogicalIndexFn& logical) {
  return te::compute(
      out.shape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> index(i.begin(), i.end());
        return tail.apply(out(index), tail.program_index ? index : logical(index));
      },
      out.name() + "_tail");
}

}  // namespace tessel::ops
