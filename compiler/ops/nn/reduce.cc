#include "compiler/ops/nn/reduce.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <string>
#include <utility>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {
namespace {

ir::Expr Const(const ir::Expr& like, double value) { return ir::FloatImm(like.dtype(), value); }

std::vector<ReduceOp> MakeTable() {
  using C = ReduceCombine;
  auto square = [](ir::Expr v, ir::Expr) { return v * v; };
  return {
      {.name = "reduce_sum"},
      {.name = "reduce_mean",
       .post = [](ir::Expr r, ir::Expr,
                  int64_t count) { return r * Const(r, 1.0 / static_cast<double>(count)); }},
      {.name = "reduce_max", .combine = C::kMax},
      {.name = "reduce_min", .combine = C::kMin},
      // Products of many elements leave float range unless they stay near 1.
      {.name = "reduce_prod", .combine = C::kProd, .low = 0.8, .high = 1.25},
      {.name = "reduce_l1", .pre = [](ir::Expr v, ir::Expr) { return ir::fabs(std::move(v)); }},
      {.name = "reduce_l2",
       .pre = square,
       .post = [](ir::Expr r, ir::Expr, int64_t) { return ir::sqrt(std::move(r)); }},
      {.name = "reduce_sum_square", .pre = square},
      {.name = "reduce_log_sum",
       .post = [](ir::Expr r, ir::Expr, int64_t) { return ir::log(std::move(r)); },
       .low = 0.1,
       .high = 2},
      {.name = "reduce_log_sum_exp",
       .pre = [](ir::Expr v, ir::Expr max) { return ir::exp(v - max); },
       .post = [](ir::Expr r, ir::Expr max, int64_t) { return max + ir::log(std::move(r)); },
       .shifted = true,
       .low = -4,
       .high = 4},
  };
}

}  // namespace

const std::vector<ReduceOp>& ReduceOps() {
  static const auto* table = new std::vector<ReduceOp>(MakeTable());
  return *table;
}

const ReduceOp* FindReduceOp(std::string_view name) {
  for (const ReduceOp& op : ReduceOps()) {
    if (name == op.name) return &op;
  }
  return nullptr;
}

absl::StatusOr<ReduceArgs> ReadReduceArgs(const ArgReader& r) {
  ReduceArgs a;
  TESSEL_ASSIGN_OR_RETURN(a.shape, r.Shape("shape"));
  const int64_t rank = static_cast<int64_t>(a.shape.size());
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> axes, r.Ints("axes", -1, -rank));
  TESSEL_ASSIGN_OR_RETURN(const bool keepdims, r.BoolOr("keepdims", true));
  if (axes.empty()) return r.Error("argument 'axes' must name at least one axis");
  for (int64_t& axis : axes) {
    if (axis >= rank) {
      return r.Error(absl::StrCat("argument 'axes': ", axis, " is not below the rank ", rank));
    }
    if (axis < 0) axis += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    return r.Error("argument 'axes' names an axis twice");
  }
  if (axes.back() - axes.front() + 1 != static_cast<int64_t>(axes.size())) {
    return r.Error(absl::StrCat("argument 'axes' [", absl::StrJoin(axes, ", "),
                                "] must be contiguous (transpose the others next to them)"));
  }
  a.axes = axes;
  for (int64_t d = 0; d < rank; ++d) {
    const bool reduced = d >= axes.front() && d <= axes.back();
    (d < axes.front() ? a.outer : reduced ? a.k : a.inner) *= a.shape[d];
    if (!reduced) {
      a.out_shape.push_back(a.shape[d]);
    } else if (keepdims) {
      a.out_shape.push_back(1);
    }
  }
  if (a.out_shape.empty()) {
    return r.Error(
        "reducing every axis without 'keepdims' leaves a rank-0 tensor, which the operator "
        "library does not have; keep the dimensions");
  }
  return a;
}

ir::Expr CombineOver(ReduceCombine combine, ir::Expr source, std::vector<ir::IterVar> axis,
                     ir::Expr where) {
  switch (combine) {
    case ReduceCombine::kMax:
      return te::max(std::move(source), std::move(axis), std::move(where));
    case ReduceCombine::kMin:
      return te::min(std::move(source), std::move(axis), std::move(where));
    case ReduceCombine::kProd: {
      static const te::Reducer* const prod = new te::Reducer(te::comm_reducer(
          [](const std::vector<ir::Var>& a, const std::vector<ir::Var>& b) {
            return std::vector<ir::Expr>{ir::Expr(a[0]) * ir::Expr(b[0])};
          },
          [](const std::vector<ir::DataType>& types) {
            return std::vector<ir::Expr>{ir::FloatImm(types[0], 1)};
          },
          "prod"));
      return (*prod)(std::move(source), std::move(axis), std::move(where));
    }
    case ReduceCombine::kSum:
      break;
  }
  return te::sum(std::move(source), std::move(axis), std::move(where));
}

ReduceTensors ReduceRows(const ReduceOp& op, const te::Tensor& x) {
  const bool rows_only = x.ndim() == 2;
  std::vector<ir::Expr> out_shape = {x.shape()[0]};
  if (!rows_only) out_shape.push_back(x.shape()[2]);
  // x's element k of the row at out index i.
  auto at = [&](const std::vector<ir::Var>& i, const ir::Expr& k) {
    return rows_only ? x(i[0], k) : x(i[0], k, i[1]);
  };
  ReduceTensors t;
  if (op.shifted) {
    ir::IterVar k = te::reduce_axis({ir::IntImm(ir::kInt32, 0), x.shape()[1]}, "k");
    t.max = te::compute(
        out_shape, [&](const std::vector<ir::Var>& i) { return te::max(at(i, k), {k}); },
        absl::StrCat(op.name, "_max"));
  }
  auto max_at = [&](const std::vector<ir::Var>& i) {
    if (!op.shifted) return ir::Expr();
    return rows_only ? t.max(i[0]) : t.max(i[0], i[1]);
  };
  ir::IterVar k = te::reduce_axis({ir::IntImm(ir::kInt32, 0), x.shape()[1]}, "k");
  t.combined = te::compute(
      out_shape,
      [&](const std::vector<ir::Var>& i) {
        return CombineOver(op.combine, op.Before(at(i, k), max_at(i)), {k});
      },
      absl::StrCat(op.name, "_combined"));
  const int64_t* count_ptr = ir::AsConstInt(x.shape()[1]);
  TESSEL_CHECK(count_ptr != nullptr) << op.name << ": the reduced extent must be a constant";
  const int64_t count = *count_ptr;
  t.output = te::compute(
      out_shape,
      [&](const std::vector<ir::Var>& i) {
        return op.After(t.combined(std::vector<ir::Expr>(i.begin(), i.end())), max_at(i), count);
      },
      op.name);
  return t;
}

}  // namespace tessel::ops::nn
