#include "compiler/ops/nn/shape.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/support/check.h"
#include "compiler/te/operation.h"

namespace tessel::ops::nn {

ir::Expr Dim(int64_t v) { return ir::IntImm(ir::kInt32, v); }

const std::vector<ir::IterVar>& Axes(const te::Tensor& t) {
  const auto* op = t.op().as<te::ComputeOpNode>();
  TESSEL_CHECK(op != nullptr) << t.name() << " is not computed: it has no axes";
  return op->axis;
}

absl::StatusOr<std::vector<int64_t>> ConstShape(const te::Tensor& t, const std::string& what) {
  std::vector<int64_t> shape;
  for (size_t d = 0; d < t.shape().size(); ++d) {
    const int64_t* v = ir::AsConstInt(t.shape()[d]);
    if (v == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": dimension ", d, " of ", t.name(), " is not a constant"));
    }
    shape.push_back(*v);
  }
  return shape;
}

std::vector<ir::Expr> ShapeExprs(const std::vector<int64_t>& shape) {
  std::vector<ir::Expr> out;
  out.reserve(shape.size());
  for (int64_t v : shape) out.push_back(ir::IntImm(ir::kInt32, v));
  return out;
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return n;
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int ndim, const std::string& what) {
  if (axis < -ndim || axis >= ndim) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is ", axis, ", outside [", -ndim, ", ",
                                                   ndim, ") for a tensor of rank ", ndim));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

}  // namespace tessel::ops::nn
