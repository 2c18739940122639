#pragma once

#include "compiler/te/tensor.h"

// Element-wise activations: one compute per call, the same shape as x, each element a function
// of the same element of x only (compute_inline absorbs them into their consumers). sigmoid and
// tanh use the IR's math calls, which the LLVM backend emits as vectorizable approximations.
namespace tessel::ops::nn {

te::Tensor Relu(const te::Tensor& x);
// x for x >= 0, alpha * x otherwise.
te::Tensor LeakyRelu(const te::Tensor& x, double alpha);
te::Tensor Sigmoid(const te::Tensor& x);
te::Tensor Tanh(const te::Tensor& x);
// min(max(x, lo), hi); the caller ensures lo <= hi.
te::Tensor Clip(const te::Tensor& x, double lo, double hi);

// The element functions of the activations above: the value each computes from one element v
// (a float scalar). The computes apply them, and so does a graph compiler that fuses an
// activation into another operator's output stage (ops/output_tail.h), so both agree.
ir::Expr ReluElement(ir::Expr v);
ir::Expr LeakyReluElement(ir::Expr v, double alpha);
ir::Expr SigmoidElement(ir::Expr v);
ir::Expr TanhElement(ir::Expr v);
ir::Expr ClipElement(ir::Expr v, double lo, double hi);

}  // namespace tessel::ops::nn
