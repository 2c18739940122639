#include "compiler/ops/nn/cast.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {
namespace {

bool IsCastType(ir::DataType t) {
  return t == ir::kFloat32 || t == ir::kFloat64 || t == ir::kInt32 || t == ir::kInt64;
}

}  // namespace

absl::StatusOr<ir::DataType> CastElementType(const ArgReader& reader, const std::string& key) {
  absl::StatusOr<std::string> text = reader.String(key);
  if (!text.ok()) return text.status();
  for (ir::DataType t : {ir::kFloat32, ir::kFloat64, ir::kInt32, ir::kInt64}) {
    if (*text == t.ToString()) return t;
  }
  return reader.ErrorIn(key, absl::InvalidArgumentError(absl::StrCat(
                                 "'", *text, "' is none of float32, float64, int32, int64")));
}

absl::StatusOr<ir::DataType> CastElementTypeOr(const ArgReader& reader, const std::string& key) {
  const absl::StatusOr<std::string> text = reader.StringOr(key, "float32");
  if (!text.ok()) return text.status();
  if (*text == "float32") return ir::kFloat32;
  return CastElementType(reader, key);
}

CastInputRange CastRange(ir::DataType from, ir::DataType to) {
  if (from == ir::kInt64 && to == ir::kInt32) return {-1099511627776.0, 1099511627776.0};  // 2^40
  return {};
}

absl::StatusOr<te::Tensor> Cast(const te::Tensor& x, ir::DataType to) {
  if (!IsCastType(x.dtype()) || !IsCastType(to)) {
    return absl::InvalidArgumentError(absl::StrCat("cast: from ", x.dtype().ToString(), " to ",
                                                   to.ToString(),
                                                   " (float32, float64, int32, int64 only)"));
  }
  absl::StatusOr<std::vector<int64_t>> shape = ConstShape(x, "cast");
  if (!shape.ok()) return shape.status();
  return te::compute(
      ShapeExprs(*shape),
      [&](const std::vector<ir::Var>& i) {
        return ir::cast(to, x(std::vector<ir::Expr>(i.begin(), i.end())));
      },
      "cast");
}

}  // namespace tessel::ops::nn
