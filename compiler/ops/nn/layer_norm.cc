#include "compiler/ops/nn/layer_norm.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {

std::vector<int64_t> LayerNormAttrs::normalized_shape() const {
  return std::vector<int64_t>(shape.begin() + axis, shape.end());
}

absl::StatusOr<LayerNormAttrs> ReadLayerNormAttrs(const ArgReader& r) {
  LayerNormAttrs a;
  TESSEL_ASSIGN_OR_RETURN(a.shape, r.Shape("shape"));
  const int64_t rank = static_cast<int64_t>(a.shape.size());
  TESSEL_ASSIGN_OR_RETURN(a.axis, r.IntOr("axis", -1, -rank));
  if (a.axis >= rank) return r.Error(absl::StrCat("argument 'axis' must be below the rank ", rank));
  if (a.axis < 0) a.axis += rank;
  TESSEL_ASSIGN_OR_RETURN(a.epsilon, r.FloatOr("epsilon", 1e-5));
  if (!(a.epsilon >= 0)) return r.Error("argument 'epsilon' must not be negative");
  for (int64_t d = 0; d < rank; ++d) (d < a.axis ? a.groups : a.normalized) *= a.shape[d];
  return a;
}

absl::StatusOr<LayerNormTensors> LayerNorm(const te::Tensor& x, const te::Tensor& gamma,
                                           const te::Tensor& beta, int64_t axis, double epsilon) {
  absl::StatusOr<int> ax = NormalizeAxis(axis, x.ndim(), "layer_norm axis");
  if (!ax.ok()) return ax.status();
  if (!(epsilon >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("layer_norm epsilon must not be negative, got ", epsilon));
  }
  const int a = *ax;
  const int normalized = x.ndim() - a;
  for (const auto& [t, what] : {std::pair{gamma, "gamma"}, std::pair{beta, "beta"}}) {
    bool same = t.ndim() == normalized;
    for (int d = 0; same && d < normalized; ++d) {
      same = ir::StructuralEqual(t.shape()[d], x.shape()[a + d]);
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          "layer_norm ", what, " must have the shape of x's axes ", a, " to ", x.ndim() - 1));
    }
  }
  absl::StatusOr<std::vector<int64_t>> shape = ConstShape(x, "layer_norm x");
  if (!shape.ok()) return shape.status();
  std::vector<ir::Expr> group_shape(x.shape().begin(), x.shape().begin() + a);
  int64_t n = 1;
  std::vector<ir::IterVar> k1, k2;
  for (int d = a; d < x.ndim(); ++d) {
    n *= (*shape)[static_cast<size_t>(d)];
    k1.push_back(te::reduce_axis({0, x.shape()[d]}, absl::StrCat("k", d - a)));
    k2.push_back(te::reduce_axis({0, x.shape()[d]}, absl::StrCat("k", d - a)));
  }
  // x at group i and the normalized position ks.
  auto at = [&](const std::vector<ir::Var>& i, const std::vector<ir::IterVar>& ks) {
    std::vector<ir::Expr> idx(i.begin(), i.end());
    for (const ir::IterVar& k : ks) idx.push_back(k->var);
    return x(idx);
  };
  auto group = [](const std::vector<ir::Var>& i, int n) {
    return std::vector<ir::Expr>(i.begin(), i.begin() + n);
  };
  const ir::Expr count = ir::MakeConst(ir::kFloat32, static_cast<double>(n));
  LayerNormTensors out;
  out.sum = te::compute(
      group_shape, [&](const std::vector<ir::Var>& i) { return te::sum(at(i, k1), k1); },
      "layer_norm_sum");
  out.mean = te::compute(
      group_shape, [&](const std::vector<ir::Var>& i) { return out.sum(group(i, a)) / count; },
      "layer_norm_mean");
  out.squares = te::compute(
      group_shape,
      [&](const std::vector<ir::Var>& i) {
        const ir::Expr d = at(i, k2) - out.mean(group(i, a));
        return te::sum(d * d, k2);
      },
      "layer_norm_squares");
  out.var = te::compute(
      group_shape, [&](const std::vector<ir::Var>& i) { return out.squares(group(i, a)) / count; },
      "layer_norm_var");
  const ir::Expr eps = ir::MakeConst(ir::kFloat32, epsilon);
  out.output = te::compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> all(i.begin(), i.end());
        std::vector<ir::Expr> inner(i.begin() + a, i.end());
        const std::vector<ir::Expr> g = group(i, a);
        return (x(all) - out.mean(g)) / ir::sqrt(out.var(g) + eps) * gamma(inner) + beta(inner);
      },
      "layer_norm");
  return out;
}

}  // namespace tessel::ops::nn
