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
    // Halves away from zero, spelled without ir::round's let-bound temporaries: |y| - floor(|y|)
    // is exact in float32.
    auto f32 = [](double c) { return ir::FloatImm(ir::kFloat32, c); };
    const ir::Expr y = v * f32(factor);
    const ir::Expr a = ir::fabs(y);
    const ir::Expr f = ir::floor(a);
    const ir::Expr r = ir::select(a - f >= f32(0.5), f + f32(1), f);
    const ir::Expr rounded = ir::select(y < f32(0), f32(0) - r, r);
    return ir::cast(ir::DataType::Int(8), ir::min(ir::max(rounded, f32(-127)), f32(127)));
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
