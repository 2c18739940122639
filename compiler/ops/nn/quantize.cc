#include "compiler/ops/nn/quantize.h"

#include <cmath>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {
namespace {

std::vector<int64_t> ShapeOf(const te::Tensor& t, const char* what) {
  absl::StatusOr<std::vector<int64_t>> shape = ConstShape(t, what);
  TESSEL_CHECK(shape.ok()) << shape.status().message();
  return *std::move(shape);
}

te::Tensor Elementwise(const te::Tensor& x, const char* name,
                       const std::function<ir::Expr(ir::Expr)>& f) {
  return te::compute(
      ShapeExprs(ShapeOf(x, name)),
      [&](const std::vector<ir::Var>& i) {
        return f(x(std::vector<ir::Expr>(i.begin(), i.end())));
      },
      name);
}

}  // namespace

absl::StatusOr<double> ReadQuantScale(const std::string& what, const OpArgs& args) {
  ArgReader reader(what, args);
  TESSEL_ASSIGN_OR_RETURN(const double scale, reader.Float("scale"));
  if (!std::isfinite(scale) || scale <= 0 || !std::isfinite(1.0 / scale) ||
      !std::isfinite(static_cast<float>(1.0 / scale)) || static_cast<float>(scale) == 0) {
    return reader.Error("argument 'scale' must be a finite number > 0 (and its reciprocal too)");
  }
  return scale;
}

float QuantizeFactor(double scale) { return static_cast<float>(1.0 / scale); }

te::Tensor Quantize(const te::Tensor& x, double scale) {
  TESSEL_CHECK(x.dtype() == ir::kFloat32) << "quantize takes float32, got " << x.dtype().ToString();
  const float factor = QuantizeFactor(scale);
  return Elementwise(x, "quantize", [factor](ir::Expr v) {
    const ir::Expr r = ir::round(v * ir::FloatImm(ir::kFloat32, factor));
    const ir::Expr clipped =
        ir::min(ir::max(r, ir::FloatImm(ir::kFloat32, -127)), ir::FloatImm(ir::kFloat32, 127));
    return ir::cast(ir::DataType::Int(8), clipped);
  });
}

te::Tensor Dequantize(const te::Tensor& q, double scale) {
  TESSEL_CHECK(q.dtype() == ir::DataType::Int(8))
      << "dequantize takes int8, got " << q.dtype().ToString();
  const float s = static_cast<float>(scale);
  return Elementwise(q, "dequantize", [s](ir::Expr v) {
    return ir::cast(ir::kFloat32, std::move(v)) * ir::FloatImm(ir::kFloat32, s);
  });
}

}  // namespace tessel::ops::nn
