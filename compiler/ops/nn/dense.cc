#include "compiler/ops/nn/dense.h"

#include <cstring>
#include <string>
#include <vector>

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

// weight [groups * n, k] -> [groups, panels, k, bn] (shape: the result's shape, same size).
runtime::NDArray PackPanels(const runtime::NDArray& weight, int64_t groups, int64_t bn,
                            int64_t panels, std::vector<int64_t> shape) {
  TESSEL_CHECK(weight.shape().size() == 2 && weight.IsContiguous() &&
               weight.dtype().code == kDLFloat && weight.dtype().bits == 32)
      << "weight to pack";
  TESSEL_CHECK(weight.shape()[0] % groups == 0) << "rows not a multiple of groups";
  const int64_t n = weight.shape()[0] / groups;
  const int64_t k = weight.shape()[1];
  TESSEL_CHECK(panels * bn >= n) << panels << " panels of " << bn << " rows for " << n;
  runtime::NDArray out = runtime::NDArray::Empty(shape, weight.dtype());
  const float* src = weight.data<float>();
  float* dst = out.data<float>();
  std::memset(dst, 0, out.NumBytes());
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t j = 0; j < n; ++j) {
      const float* row = src + (g * n + j) * k;
      float* panel = dst + ((g * panels + j / bn) * k) * bn + j % bn;
      for (int64_t r = 0; r < k; ++r) panel[r * bn] = row[r];
    }
  }
  return out;
}

}  // namespace

te::Tensor Dense(const te::Tensor& data, const te::Tensor& weight, const char* name) {
  TESSEL_CHECK(data.ndim() == 2 && weight.ndim() == 2) << "dense of " << data.name();
  ir::IterVar r = te::reduce_axis({0, data.shape()[1]}, "k");
  return te::compute(
      {data.shape()[0], weight.shape()[0]},
      [&](Var i, Var j) { return te::sum(data(i, r) * weight(j, r), {r}); }, name);
}

te::Tensor DensePacked(const te::Tensor& data, const te::Tensor& packed, int64_t n,
                       const char* name) {
  TESSEL_CHECK(data.ndim() == 2 && packed.ndim() == 3) << "packed dense of " << data.name();
  const int bn = static_cast<int>(ConstDim(packed, 2));
  ir::IterVar r = te::reduce_axis({0, data.shape()[1]}, "k");
  return te::compute(
      {data.shape()[0], Dim(n)},
      [&](Var i, Var j) { return te::sum(data(i, r) * packed(j / bn, r, j % bn), {r}); }, name);
}

te::Tensor PadZeros(const te::Tensor& t, const std::vector<int64_t>& shape, const char* name) {
  TESSEL_CHECK(static_cast<int>(shape.size()) == t.ndim()) << "padding of " << t.name();
  std::vector<Expr> dims;
  for (int64_t v : shape) dims.push_back(Dim(v));
  return te::compute(
      dims,
      [&](const std::vector<Var>& v) {
        Expr inside;
        for (int d = 0; d < t.ndim(); ++d) {
          const int64_t extent = ConstDim(t, d);
          if (extent == shape[d]) continue;
          Expr c = v[d] < static_cast<int>(extent);
          inside = inside.defined() ? (inside && c) : c;
        }
        std::vector<Expr> idx(v.begin(), v.end());
        if (!inside.defined()) return t(idx);
        return ir::if_then_else(inside, t(idx), ir::MakeZero(t.dtype()));
      },
      name);
}

te::Tensor CropBias(const te::Tensor& in, const std::vector<int64_t>& shape, const te::Tensor& bias,
                    const char* name) {
  std::vector<Expr> dims;
  for (int64_t v : shape) dims.push_back(Dim(v));
  return te::compute(
      dims,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> idx(v.begin(), v.end());
        if (!bias.defined()) return in(idx);
        return in(idx) + bias(v.back());
      },
      name);
}

te::Tensor PackColumns(const te::Tensor& b, int64_t bn, int64_t panels, const char* name) {
  const int nd = b.ndim();
  TESSEL_CHECK(nd == 2 || nd == 3) << "column panels of " << b.name();
  const int64_t n = ConstDim(b, nd - 1);
  const int w = static_cast<int>(bn);
  std::vector<Expr> shape;
  if (nd == 3) shape.push_back(b.shape()[0]);
  shape.insert(shape.end(), {Dim(panels), b.shape()[nd - 2], Dim(bn)});
  return te::compute(
      shape,
      [&](const std::vector<Var>& v) {
        // v = [batch,] jo, r, ji
        const Var& jo = v[nd - 2];
        const Var& r = v[nd - 1];
        const Var& ji = v[nd];
        Expr col = jo * w + ji;
        std::vector<Expr> idx;
        if (nd == 3) idx.push_back(v[0]);
        idx.push_back(r);
        idx.push_back(col);
        if (panels * bn == n) return b(idx);
        return ir::if_then_else(col < static_cast<int>(n), b(idx), ir::MakeZero(b.dtype()));
      },
      name);
}

runtime::NDArray PackRowPanels(const runtime::NDArray& weight, int64_t bn, int64_t panels) {
  return PackPanels(weight, 1, bn, panels, {panels, weight.shape().at(1), bn});
}

runtime::NDArray TransposeRows(const runtime::NDArray& weight, int64_t cols) {
  // One panel as wide as the matrix is its transpose.
  return PackPanels(weight, 1, cols, 1, {weight.shape().at(1), cols});
}

runtime::NDArray PackGroupedRowPanels(const runtime::NDArray& weight, int64_t groups, int64_t bn,
                                      int64_t panels) {
  return PackPanels(weight, groups, bn, panels, {groups, panels, weight.shape().at(1), bn});
}

}  // namespace tessel::ops::nn
