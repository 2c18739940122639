#include "compiler/ops/nn/activation.h"

#include "compiler/ir/op.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {
namespace {

te::Tensor ElementWise(const te::Tensor& x, const std::function<ir::Expr(ir::Expr)>& f,
                       const std::string& name) {
  return te::compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) {
        return f(x(std::vector<ir::Expr>(i.begin(), i.end())));
      },
      name);
}

}  // namespace

ir::Expr ReluElement(ir::Expr v) {
  const ir::DataType t = v.dtype();
  return ir::max(std::move(v), ir::MakeZero(t));
}

ir::Expr LeakyReluElement(ir::Expr v, double alpha) {
  const ir::DataType t = v.dtype();
  return ir::select(v >= ir::MakeZero(t), v, v * ir::FloatImm(t, alpha));
}

ir::Expr SigmoidElement(ir::Expr v) { return ir::sigmoid(std::move(v)); }

ir::Expr TanhElement(ir::Expr v) { return ir::tanh(std::move(v)); }

ir::Expr ClipElement(ir::Expr v, double lo, double hi) {
  const ir::DataType t = v.dtype();
  return ir::min(ir::max(std::move(v), ir::FloatImm(t, lo)), ir::FloatImm(t, hi));
}

te::Tensor Relu(const te::Tensor& x) { return ElementWise(x, ReluElement, "relu"); }

te::Tensor LeakyRelu(const te::Tensor& x, double alpha) {
  return ElementWise(
      x, [alpha](ir::Expr v) { return LeakyReluElement(std::move(v), alpha); }, "leaky_relu");
}

te::Tensor Sigmoid(const te::Tensor& x) { return ElementWise(x, SigmoidElement, "sigmoid"); }

te::Tensor Tanh(const te::Tensor& x) { return ElementWise(x, TanhElement, "tanh"); }

te::Tensor Clip(const te::Tensor& x, double lo, double hi) {
  return ElementWise(
      x, [lo, hi](ir::Expr v) { return ClipElement(std::move(v), lo, hi); }, "clip");
}

}  // namespace tessel::ops::nn
