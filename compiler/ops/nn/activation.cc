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

te::Tensor Relu(const te::Tensor& x) {
  return ElementWise(
      x, [&](ir::Expr v) { return ir::max(v, ir::MakeZero(x.dtype())); }, "relu");
}

te::Tensor LeakyRelu(const te::Tensor& x, double alpha) {
  return ElementWise(
      x,
      [&](ir::Expr v) {
        return ir::select(v >= ir::MakeZero(x.dtype()), v, v * ir::FloatImm(x.dtype(), alpha));
      },
      "leaky_relu");
}

te::Tensor Sigmoid(const te::Tensor& x) {
  return ElementWise(
      x, [](ir::Expr v) { return ir::sigmoid(v); }, "sigmoid");
}

te::Tensor Tanh(const te::Tensor& x) {
  return ElementWise(
      x, [](ir::Expr v) { return ir::tanh(v); }, "tanh");
}

te::Tensor Clip(const te::Tensor& x, double lo, double hi) {
  return ElementWise(
      x,
      [&](ir::Expr v) {
        return ir::min(ir::max(v, ir::FloatImm(x.dtype(), lo)), ir::FloatImm(x.dtype(), hi));
      },
      "clip");
}

}  // namespace tessel::ops::nn
