#include "compiler/ops/x86/lane_reduce.h"

#include "compiler/ir/op.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {

LaneReduction LaneReduce(const std::vector<int64_t>& rows, int64_t k, int64_t lanes,
                         LaneReducer reducer, const RowElement& f, const std::string& name) {
  TESSEL_CHECK(lanes >= 1 && k >= 1) << name << ": lanes " << lanes << ", k " << k;
  const int64_t blocks = (k + lanes - 1) / lanes;
  std::vector<int64_t> partial_shape = rows;
  partial_shape.push_back(lanes);
  ir::IterVar o = te::reduce_axis({0, ir::IntImm(ir::kInt32, blocks)}, "o");
  const ir::Expr l_extent = ir::IntImm(ir::kInt32, lanes);
  LaneReduction r;
  r.partial = te::compute(
      nn::ShapeExprs(partial_shape),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> row(i.begin(), i.end() - 1);
        const ir::Expr index = o * l_extent + i.back();
        ir::Expr where;
        if (k % lanes != 0) where = index < ir::IntImm(ir::kInt32, k);
        return nn::CombineOver(reducer, f(row, index), {o}, where);
      },
      name + "_partial");
  ir::IterVar l = te::reduce_axis({0, l_extent}, "l");
  r.result = te::compute(
      nn::ShapeExprs(rows),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> index(i.begin(), i.end());
        index.push_back(l);
        return nn::CombineOver(reducer, r.partial(index), {l});
      },
      name);
  return r;
}

absl::Status ScheduleLaneReduction(schedule::Schedule& s, const LaneReduction& r,
                                   const ir::IterVar& scope) {
  const auto* result = r.result.op().as<te::ComputeOpNode>();
  const auto* partial = r.partial.op().as<te::ComputeOpNode>();
  schedule::Stage ps = s[r.partial];
  if (scope.get() != nullptr) {
    TESSEL_RETURN_IF_ERROR(ps.compute_at(s[r.result], scope));
  } else if (!result->axis.empty()) {
    TESSEL_RETURN_IF_ERROR(ps.compute_at(s[r.result], result->axis.back()));
  }
  const ir::IterVar& lane = partial->axis.back();
  TESSEL_RETURN_IF_ERROR(ps.reorder({partial->reduce_axis[0], lane}));
  return ps.vectorize(lane);
}

}  // namespace tessel::ops::x86
