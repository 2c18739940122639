#include "compiler/ops/nn/softmax.h"

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {
namespace {

// i without dimension `axis`.
std::vector<ir::Expr> Drop(const std::vector<ir::Var>& i, int axis) {
  std::vector<ir::Expr> out;
  for (int d = 0; d < static_cast<int>(i.size()); ++d) {
    if (d != axis) out.push_back(i[d]);
  }
  return out;
}

// i without dimension `axis`, with k inserted there.
std::vector<ir::Expr> Insert(const std::vector<ir::Var>& i, int axis, const ir::Expr& k) {
  std::vector<ir::Expr> out(i.begin(), i.end());
  out.insert(out.begin() + axis, k);
  return out;
}

absl::StatusOr<SoftmaxTensors> Build(const te::Tensor& x, int64_t axis, bool log) {
  absl::StatusOr<int> ax = NormalizeAxis(axis, x.ndim(), log ? "log_softmax axis" : "softmax axis");
  if (!ax.ok()) return ax.status();
  const int a = *ax;
  std::vector<ir::Expr> reduced_shape;
  for (int d = 0; d < x.ndim(); ++d) {
    if (d != a) reduced_shape.push_back(x.shape()[d]);
  }
  const ir::Expr extent = x.shape()[a];
  ir::IterVar k1 = te::reduce_axis({0, extent}, "k");
  te::Tensor max = te::compute(
      reduced_shape,
      [&](const std::vector<ir::Var>& i) { return te::max(x(Insert(i, a, k1)), {k1}); },
      "softmax_max");
  SoftmaxTensors out;
  out.max = max;
  auto all = [](const std::vector<ir::Var>& i) {
    return std::vector<ir::Expr>(i.begin(), i.end());
  };
  ir::IterVar k2 = te::reduce_axis({0, extent}, "k");
  if (log) {
    out.sum = te::compute(
        reduced_shape,
        [&](const std::vector<ir::Var>& i) {
          return te::sum(ir::exp(x(Insert(i, a, k2)) - max(all(i))), {k2});
        },
        "softmax_sum");
    out.output = te::compute(
        x.shape(),
        [&](const std::vector<ir::Var>& i) {
          return x(all(i)) - max(Drop(i, a)) - ir::log(out.sum(Drop(i, a)));
        },
        "log_softmax");
    return out;
  }
  out.exp = te::compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) { return ir::exp(x(all(i)) - max(Drop(i, a))); },
      "softmax_exp");
  out.sum = te::compute(
      reduced_shape,
      [&](const std::vector<ir::Var>& i) { return te::sum(out.exp(Insert(i, a, k2)), {k2}); },
      "softmax_sum");
  out.output = te::compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) { return out.exp(all(i)) / out.sum(Drop(i, a)); },
      "softmax");
  return out;
}

}  // namespace

absl::StatusOr<SoftmaxTensors> Softmax(const te::Tensor& x, int64_t axis) {
  return Build(x, axis, false);
}

absl::StatusOr<SoftmaxTensors> LogSoftmax(const te::Tensor& x, int64_t axis) {
  return Build(x, axis, true);
}

}  // namespace tessel::ops::nn
