#include "compiler/testing/workloads.h"

#include "compiler/ir/op.h"

namespace tessel::testing {

using ir::Expr;
using ir::Var;

Matmul MakeMatmul(int n, int m, int l) {
  Matmul w;
  w.A = te::placeholder({n, l}, ir::kFloat32, "A");
  w.B = te::placeholder({l, m}, ir::kFloat32, "B");
  w.k = te::reduce_axis({0, l}, "k");
  w.C = te::compute(
      {n, m}, [&](Var i, Var j) { return te::sum(w.A(i, w.k) * w.B(w.k, j), {w.k}); }, "C");
  w.args = {w.A, w.B, w.C};
  w.output = w.C;
  return w;
}

Conv2d MakeConv2d(int batch, int in_channels, int size, int out_channels, int kernel, int stride,
                  int pad) {
  Conv2d w;
  const int padded = size + 2 * pad;
  const int out = (padded - kernel) / stride + 1;
  w.A = te::placeholder({batch, in_channels, size, size}, ir::kFloat32, "A");
  w.W = te::placeholder({out_channels, in_channels, kernel, kernel}, ir::kFloat32, "W");
  w.Apad = te::compute({batch, in_channels, padded, padded},
                       [&](Var n, Var c, Var h, Var x) {
                         Expr inside = h >= pad && h < size + pad && x >= pad && x < size + pad;
                         return ir::if_then_else(inside, w.A(n, c, h - pad, x - pad), 0.0f);
                       },
                       "Apad", {"n", "c", "h", "w"});
  w.rc = te::reduce_axis({0, in_channels}, "rc");
  w.ry = te::reduce_axis({0, kernel}, "ry");
  w.rx = te::reduce_axis({0, kernel}, "rx");
  w.C = te::compute({batch, out_channels, out, out},
                    [&](Var n, Var f, Var y, Var x) {
                      return te::sum(w.Apad(n, w.rc, y * stride + w.ry, x * stride + w.rx) *
                                         w.W(f, w.rc, w.ry, w.rx),
                                     {w.rc, w.ry, w.rx});
                    },
                    "C", {"n", "f", "y", "x"});
  w.args = {w.A, w.W, w.C};
  w.output = w.C;
  return w;
}

DepthwiseConv2d MakeDepthwiseConv2d(int channels, int size, int kernel, int stride, int pad) {
  DepthwiseConv2d w;
  const int padded = size + 2 * pad;
  const int out = (padded - kernel) / stride + 1;
  w.A = te::placeholder({1, channels, size, size}, ir::kFloat32, "A");
  w.W = te::placeholder({channels, 1, kernel, kernel}, ir::kFloat32, "W");
  w.Apad = te::compute({1, channels, padded, padded},
                       [&](Var n, Var c, Var h, Var x) {
                         Expr inside = h >= pad && h < size + pad && x >= pad && x < size + pad;
                         return ir::if_then_else(inside, w.A(n, c, h - pad, x - pad), 0.0f);
                       },
                       "Apad", {"n", "c", "h", "w"});
  w.ry = te::reduce_axis({0, kernel}, "ry");
  w.rx = te::reduce_axis({0, kernel}, "rx");
  w.C = te::compute(
      {1, channels, out, out},
      [&](Var n, Var c, Var y, Var x) {
        return te::sum(w.Apad(n, c, y * stride + w.ry, x * stride + w.rx) * w.W(c, 0, w.ry, w.rx),
                       {w.ry, w.rx});
      },
      "C", {"n", "c", "y", "x"});
  w.args = {w.A, w.W, w.C};
  w.output = w.C;
  return w;
}

Argmax MakeArgmax(int rows, int cols) {
  Argmax w;
  w.A = te::placeholder({rows, cols}, ir::kFloat32, "A");
  te::Reducer argmax = te::comm_reducer(
      [](const std::vector<Var>& x, const std::vector<Var>& y) {
        // Larger value wins; on a tie the smaller index, so the result does not depend on order.
        Expr take_x = x[1] > y[1] || (x[1] == y[1] && x[0] < y[0]);
        return std::vector<Expr>{ir::select(take_x, x[0], y[0]), ir::select(take_x, x[1], y[1])};
      },
      [](const std::vector<ir::DataType>& t) {
        return std::vector<Expr>{ir::IntImm(t[0], -1), ir::MinValue(t[1])};
      },
      "argmax");
  w.k = te::reduce_axis({0, cols}, "k");
  std::vector<te::Tensor> out = te::compute_multi(
      {rows},
      [&](const std::vector<Var>& v) {
        return argmax({Expr(w.k->var), w.A(v[0], w.k)}, {w.k});
      },
      "argmax");
  w.index = out[0];
  w.value = out[1];
  w.args = {w.A, w.index, w.value};
  w.output = w.index;
  return w;
}

ElementwiseChain MakeElementwiseChain(int n, int m) {
  ElementwiseChain w;
  w.A = te::placeholder({n, m}, ir::kFloat32, "A");
  w.B = te::placeholder({n, m}, ir::kFloat32, "B");
  w.T1 = te::compute(
      {n, m}, [&](Var i, Var j) { return w.A(i, j) * 2.0f; }, "T1");
  w.T2 = te::compute(
      {n, m}, [&](Var i, Var j) { return w.T1(i, j) + w.B(i, j); }, "T2");
  w.D = te::compute(
      {n, m}, [&](Var i, Var j) { return ir::max(w.T2(i, j), 0.0f); }, "D");
  w.args = {w.A, w.B, w.D};
  w.output = w.D;
  return w;
}

}  // namespace tessel::testing
