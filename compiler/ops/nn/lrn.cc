#include "compiler/ops/nn/lrn.h"

#include "compiler/ir/op.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {

absl::StatusOr<LrnAttrs> ReadLrnAttrs(const ArgReader& r) {
  LrnAttrs a;
  TESSEL_ASSIGN_OR_RETURN(a.n, r.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(a.c, r.Extent("c"));
  TESSEL_ASSIGN_OR_RETURN(a.h, r.Extent("h"));
  TESSEL_ASSIGN_OR_RETURN(a.w, r.Extent("w"));
  TESSEL_ASSIGN_OR_RETURN(a.size, r.Int("size"));
  TESSEL_ASSIGN_OR_RETURN(a.alpha, r.FloatOr("alpha", 1e-4));
  TESSEL_ASSIGN_OR_RETURN(a.beta, r.FloatOr("beta", 0.75));
  TESSEL_ASSIGN_OR_RETURN(a.bias, r.FloatOr("bias", 1.0));
  // A positive base keeps the power real; ONNX's bias defaults to 1 and alpha to 1e-4.
  if (!(a.bias > 0)) return r.Error("argument 'bias' must be positive");
  if (!(a.alpha >= 0)) return r.Error("argument 'alpha' must not be negative");
  return a;
}

LrnTensors Lrn(const te::Tensor& x, const LrnAttrs& a) {
  const ir::DataType t = x.dtype();
  const int64_t before = (a.size - 1) / 2;
  ir::IterVar r = te::reduce_axis({ir::IntImm(ir::kInt32, 0), ir::IntImm(ir::kInt32, a.size)}, "r");
  LrnTensors out;
  out.square_sum = te::compute(
      x.shape(),
      [&](ir::Var n, ir::Var c, ir::Var h, ir::Var w) {
        const ir::Expr channel = c + r - ir::IntImm(ir::kInt32, before);
        const ir::Expr inside =
            channel >= ir::IntImm(ir::kInt32, 0) && channel < ir::IntImm(ir::kInt32, a.c);
        const ir::Expr v = x(n, channel, h, w);
        return te::sum(v * v, {r}, inside);
      },
      "lrn_square_sum");
  out.output = te::compute(
      x.shape(),
      [&](ir::Var n, ir::Var c, ir::Var h, ir::Var w) {
        const ir::Expr scale =
            ir::FloatImm(t, a.bias) +
            ir::FloatImm(t, a.alpha / static_cast<double>(a.size)) * out.square_sum(n, c, h, w);
        return x(n, c, h, w) / ir::pow(scale, ir::FloatImm(t, a.beta));
      },
      "lrn");
  return out;
}

}  // namespace tessel::ops::nn
