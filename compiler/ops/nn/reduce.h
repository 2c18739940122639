#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// Reductions over contiguous axes (ONNX's Reduce* operators), written once: each operator is
// post(combine over the reduced elements of pre(x))). The logical signatures, the x86 template
// and the graph's operator table read this table. Arguments: `shape`, `axes` (distinct, counting
// from the end when negative, and contiguous: the graph frontend transposes other sets next to
// each other), `keepdims=true`. The reduced axes are extent 1 in the result with keepdims, else
// dropped; a result of rank 0 is refused (the library has no rank-0 tensors).
namespace tessel::ops::nn {

enum class ReduceCombine { kSum, kMax, kMin, kProd };

struct ReduceOp {
  const char* name;  // the graph's operator name, e.g. "reduce_mean"
  ReduceCombine combine = ReduceCombine::kSum;
  // Applied to each element before combining (null: the element itself). `max` is the maximum
  // over the same elements when `shifted`, else undefined.
  std::function<ir::Expr(ir::Expr v, ir::Expr max)> pre = nullptr;
  // Applied to the combined value (null: itself); `count` is the number of elements reduced.
  std::function<ir::Expr(ir::Expr combined, ir::Expr max, int64_t count)> post = nullptr;
  // Whether a maximum is reduced first (log_sum_exp: exp(x - max) cannot overflow).
  bool shifted = false;
  double low = -1, high = 1;  // where tests draw inputs

  // pre and post applied (the value itself where they are null).
  ir::Expr Before(ir::Expr v, ir::Expr max) const { return pre ? pre(v, max) : v; }
  ir::Expr After(ir::Expr combined, ir::Expr max, int64_t count) const {
    return post ? post(combined, max, count) : combined;
  }
};

// reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod, reduce_l1, reduce_l2,
// reduce_sum_square, reduce_log_sum, reduce_log_sum_exp.
const std::vector<ReduceOp>& ReduceOps();
const ReduceOp* FindReduceOp(std::string_view name);

// The arguments read, and the input seen as [outer, k, inner] (k: the reduced elements).
struct ReduceArgs {
  std::vector<int64_t> shape;
  std::vector<int64_t> axes;  // normalized (>= 0), ascending
  std::vector<int64_t> out_shape;
  int64_t outer = 1, k = 1, inner = 1;
  // The input as templates read it: [outer, k, inner], or [outer, k] when inner is 1.
  std::vector<int64_t> view() const {
    if (inner == 1) return {outer, k};
    return {outer, k, inner};
  }
};
absl::StatusOr<ReduceArgs> ReadReduceArgs(const ArgReader& r);

// The reduction of x, seen as [outer, k, inner] (rank 3) or [outer, k] (rank 2: inner 1).
struct ReduceTensors {
  te::Tensor max;       // shifted operators: the maximum, x's shape without k
  te::Tensor combined;  // x's shape without k: combine over k of pre(x)
  te::Tensor output;    // x's shape without k: post(combined)
};
ReduceTensors ReduceRows(const ReduceOp& op, const te::Tensor& x);

// combine over `axis` of source (where `where` holds), as te's reducers.
ir::Expr CombineOver(ReduceCombine combine, ir::Expr source, std::vector<ir::IterVar> axis,
                     ir::Expr where = ir::Expr());

}  // namespace tessel::ops::nn
