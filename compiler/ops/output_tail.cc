#include "compiler/ops/output_tail.h"

#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
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

OutputTail BroadcastingTail(
    std::vector<int64_t> out_shape, const std::vector<std::string>& names,
    const std::vector<std::vector<int64_t>>& shapes,
    std::function<ir::Expr(ir::Expr value, const std::vector<ir::Expr>& reads)> combine) {
  TESSEL_CHECK(names.size() == shapes.size())
      << names.size() << " names, " << shapes.size() << " shapes";
  OutputTail tail;
  for (size_t i = 0; i < shapes.size(); ++i) {
    TESSEL_CHECK(shapes[i].size() <= out_shape.size()) << names[i] << " has a higher rank";
    tail.inputs.push_back(te::placeholder(nn::ShapeExprs(shapes[i]), ir::kFloat32, names[i]));
  }
  tail.apply = [inputs = tail.inputs, shapes, out_shape, combine](
                   ir::Expr value, const std::vector<ir::Expr>& index) {
    std::vector<ir::Expr> reads;
    for (size_t i = 0; i < inputs.size(); ++i) {
      reads.push_back(inputs[i](nn::BroadcastIndex(shapes[i], out_shape, index)));
    }
    return combine(value, reads);
  };
  tail.over_views = [names, combine](const std::vector<int64_t>& out,
                                     const std::vector<std::vector<int64_t>>& views) {
    return BroadcastingTail(out, names, views, combine);
  };
  return tail;
}

}  // namespace tessel::ops
