#include "compiler/ops/nn/rnn.h"

#include <cstring>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {
namespace {

using ir::Expr;
using ir::Var;

int64_t ConstDim(const te::Tensor& t, int d) {
  const int64_t* v = ir::AsConstInt(t.shape().at(d));
  TESSEL_CHECK(v != nullptr) << t.name() << " has a symbolic dimension " << d;
  return *v;
}

bool IsContiguousF32(const runtime::NDArray& a) {
  return a.IsContiguous() && a.dtype().code == kDLFloat && a.dtype().bits == 32;
}

}  // namespace

te::Tensor JoinInputs(const te::Tensor& x, const te::Tensor& h, int64_t rows, const char* name) {
  const int64_t batch = ConstDim(x, 0), input = ConstDim(x, 1), hidden = ConstDim(h, 1);
  const int in = static_cast<int>(input);
  return te::compute(
      {Dim(rows), Dim(input + hidden)},
      [&](Var b, Var r) {
        Expr v = ir::if_then_else(r < in, x(b, r), h(b, r - in));
        if (rows == batch) return v;
        return ir::if_then_else(b < static_cast<int>(batch), v, 0.0f);
      },
      name);
}

te::Tensor GateSums(const te::Tensor& xh, const te::Tensor& packed, int64_t cols,
                    const char* name) {
  TESSEL_CHECK(xh.ndim() == 2 && packed.ndim() == 4) << "gate sums of " << xh.name();
  const int bn = static_cast<int>(ConstDim(packed, 3));
  ir::IterVar r = te::reduce_axis({0, xh.shape()[1]}, "k");
  return te::compute(
      {xh.shape()[0], packed.shape()[0], Dim(cols)},
      [&](Var b, Var g, Var j) { return te::sum(xh(b, r) * packed(g, j / bn, r, j % bn), {r}); },
      name, {"b", "g", "j"});
}

te::Tensor RnnCellOutput(const te::Tensor& gates, const te::Tensor& bias, int64_t batch,
                         int64_t hidden, const char* name) {
  return te::compute({Dim(batch), Dim(hidden)},
                     [&](Var b, Var j) { return ir::tanh(gates(b, 0, j) + bias(0, j)); }, name,
                     {"b", "j"});
}

std::vector<te::Tensor> LstmCellOutputs(const te::Tensor& gates, const te::Tensor& bias,
                                        const te::Tensor& c, int64_t batch, int64_t hidden,
                                        const char* name) {
  return te::compute_multi({Dim(batch), Dim(hidden)},
                           [&](const std::vector<Var>& v) -> std::vector<Expr> {
                             const Var& b = v[0];
                             const Var& j = v[1];
                             auto gate = [&](int g) { return gates(b, g, j) + bias(g, j); };
                             Expr c_next = ir::sigmoid(gate(1)) * c(b, j) +
                                           ir::sigmoid(gate(0)) * ir::tanh(gate(2));
                             return {ir::sigmoid(gate(3)) * ir::tanh(c_next), c_next};
                           },
                           name, {"b", "j"});
}

runtime::NDArray JoinWeights(const runtime::NDArray& w_ih, const runtime::NDArray& w_hh) {
  TESSEL_CHECK(IsContiguousF32(w_ih) && IsContiguousF32(w_hh) &&
               w_ih.shape().at(0) == w_hh.shape().at(0))
      << "recurrent weights to join";
  const int64_t rows = w_ih.shape()[0], a = w_ih.shape()[1], b = w_hh.shape()[1];
  runtime::NDArray out = runtime::NDArray::Empty({rows, a + b}, w_ih.dtype());
  float* dst = out.data<float>();
  for (int64_t i = 0; i < rows; ++i) {
    std::memcpy(dst + i * (a + b), w_ih.data<float>() + i * a, a * sizeof(float));
    std::memcpy(dst + i * (a + b) + a, w_hh.data<float>() + i * b, b * sizeof(float));
  }
  return out;
}

runtime::NDArray SumBiases(const runtime::NDArray& b_ih, const runtime::NDArray& b_hh,
                           int64_t gates) {
  TESSEL_CHECK(IsContiguousF32(b_ih) && IsContiguousF32(b_hh) &&
               b_ih.NumElements() == b_hh.NumElements() && b_ih.NumElements() % gates == 0)
      << "recurrent biases to add";
  runtime::NDArray out = runtime::NDArray::Empty({gates, b_ih.NumElements() / gates}, b_ih.dtype());
  for (int64_t i = 0; i < b_ih.NumElements(); ++i) {
    out.data<float>()[i] = b_ih.data<float>()[i] + b_hh.data<float>()[i];
  }
  return out;
}

}  // namespace tessel::ops::nn
