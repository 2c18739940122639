#include "compiler/ops/nn/batch_norm.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {

absl::StatusOr<BatchNormTensors> BatchNormInference(const te::Tensor& data, const te::Tensor& gamma,
                                                    const te::Tensor& beta, const te::Tensor& mean,
                                                    const te::Tensor& var, double epsilon,
                                                    int axis) {
  absl::StatusOr<std::vector<int64_t>> shape = ConstShape(data, "batch_norm");
  if (!shape.ok()) return shape.status();
  absl::StatusOr<int> ax = NormalizeAxis(axis, static_cast<int>(shape->size()), "batch_norm axis");
  if (!ax.ok()) return ax.status();
  if (!(epsilon >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat("batch_norm: epsilon ", epsilon, " < 0"));
  }
  const int64_t channels = (*shape)[*ax];
  const std::pair<const char*, const te::Tensor*> params[] = {
      {"gamma", &gamma}, {"beta", &beta}, {"mean", &mean}, {"var", &var}};
  for (const auto& [name, t] : params) {
    absl::StatusOr<std::vector<int64_t>> s = ConstShape(*t, "batch_norm");
    if (!s.ok()) return s.status();
    if (*s != std::vector<int64_t>{channels}) {
      return absl::InvalidArgumentError(absl::StrCat("batch_norm: ", name, " must have shape [",
                                                     channels, "] (the channels of data)"));
    }
  }
  const ir::Expr c_extent = ir::IntImm(ir::kInt32, channels);
  const ir::Expr eps = ir::FloatImm(data.dtype(), epsilon);
  te::Tensor scale = te::compute(
      {c_extent}, [&](ir::Var c) { return gamma(c) / ir::sqrt(var(c) + eps); }, "bn_scale");
  te::Tensor shift = te::compute(
      {c_extent}, [&](ir::Var c) { return beta(c) - mean(c) * scale(c); }, "bn_shift");
  te::Tensor out = te::compute(
      data.shape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> idx(i.begin(), i.end());
        return data(idx) * scale(i[*ax]) + shift(i[*ax]);
      },
      "batch_norm");
  return BatchNormTensors{scale, shift, out};
}

}  // namespace tessel::ops::nn
