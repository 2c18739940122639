#include "compiler/ops/nn/take.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {

absl::StatusOr<std::vector<int64_t>> TakeShape(const std::vector<int64_t>& data_shape,
                                               const std::vector<int64_t>& indices_shape,
                                               int64_t axis) {
  if (data_shape.empty() || indices_shape.empty()) {
    return absl::InvalidArgumentError("take: data and indices must have rank >= 1");
  }
  absl::StatusOr<int> a = NormalizeAxis(axis, static_cast<int>(data_shape.size()), "take axis");
  if (!a.ok()) return a.status();
  std::vector<int64_t> out(data_shape.begin(), data_shape.begin() + *a);
  out.insert(out.end(), indices_shape.begin(), indices_shape.end());
  out.insert(out.end(), data_shape.begin() + *a + 1, data_shape.end());
  return out;
}

absl::StatusOr<ir::DataType> TakeIndexType(const ArgReader& reader) {
  absl::StatusOr<std::string> text = reader.StringOr("indices_dtype", "int32");
  if (!text.ok()) return text.status();
  if (*text == "int32") return ir::kInt32;
  if (*text == "int64") return ir::kInt64;
  return reader.ErrorIn("indices_dtype", absl::InvalidArgumentError(absl::StrCat(
                                             "'", *text, "' is neither int32 nor int64")));
}

absl::StatusOr<te::Tensor> Take(const te::Tensor& data, const te::Tensor& indices, int64_t axis) {
  const ir::DataType index_type = indices.dtype();
  if (index_type != ir::kInt32 && index_type != ir::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("take: indices ", indices.name(), " must be int32 or int64"));
  }
  absl::StatusOr<std::vector<int64_t>> d = ConstShape(data, "take");
  if (!d.ok()) return d.status();
  absl::StatusOr<std::vector<int64_t>> ishape = ConstShape(indices, "take");
  if (!ishape.ok()) return ishape.status();
  absl::StatusOr<std::vector<int64_t>> out = TakeShape(*d, *ishape, axis);
  if (!out.ok()) return out.status();
  const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(d->size()) : axis);
  const size_t q = ishape->size();
  const int64_t n = (*d)[a];
  return te::compute(
      ShapeExprs(*out),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> at(i.begin() + a, i.begin() + a + q);
        auto index = [&](int64_t v) { return ir::IntImm(index_type, v); };
        ir::Expr k = indices(at);
        k = ir::select(k < index(0), k + index(n), k);
        k = ir::max(ir::min(k, index(n - 1)), index(0));
        if (index_type != ir::kInt32) k = ir::cast(ir::kInt32, k);
        std::vector<ir::Expr> idx(i.begin(), i.begin() + a);
        idx.push_back(k);
        idx.insert(idx.end(), i.begin() + a + q, i.end());
        return data(idx);
      },
      "take");
}

}  // namespace tessel::ops::nn
