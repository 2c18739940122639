#include "compiler/ops/nn/winograd.h"

#include <absl/strings/str_cat.h>

#include <cmath>
#include <functional>

#include "compiler/ir/op.h"
#include "compiler/support/check.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {
namespace {

using ir::Expr;
using ir::Var;

Expr I32(int64_t v) { return ir::IntImm(ir::kInt32, v); }
Expr F32(double v) { return ir::FloatImm(ir::kFloat32, v); }

int64_t ConstDim(const te::Tensor& t, int i) {
  const int64_t* v = ir::AsConstInt(t.shape().at(i));
  TESSEL_CHECK(v != nullptr) << "tensor " << t.op()->name << " has a non-constant extent " << i;
  return *v;
}

// Coefficients of prod_k (x - roots[k]), lowest degree first.
std::vector<double> PolyFromRoots(const std::vector<double>& roots) {
  std::vector<double> p{1.0};
  for (double root : roots) {
    std::vector<double> q(p.size() + 1, 0.0);
    for (size_t i = 0; i < p.size(); ++i) {
      q[i + 1] += p[i];
      q[i] -= root * p[i];
    }
    p = std::move(q);
  }
  return p;
}

using Term = std::function<Expr(int)>;

// sum_k coeffs[k] * term(k), written out: zero coefficients dropped, +-1 as plain additions.
Expr Combination(const std::vector<double>& coeffs, const Term& term) {
  Expr sum;
  for (size_t k = 0; k < coeffs.size(); ++k) {
    const double c = coeffs[k];
    if (c == 0) continue;
    Expr t = term(static_cast<int>(k));
    if (std::fabs(c) != 1) t = t * F32(std::fabs(c));
    if (!sum.defined()) {
      sum = c < 0 ? -t : t;
    } else {
      sum = c < 0 ? sum - t : sum + t;
    }
  }
  return sum.defined() ? sum : F32(0);
}

// Row `row` of mat times the vector term(0 .. cols-1). The row index is an expression (a loop
// variable), so the rows form an if_then_else chain; once unrolling makes the index constant
// the simplifier keeps only the row taken.
Expr RowTimes(const Matrix& mat, const Expr& row, const Term& term) {
  if (const int64_t* c = ir::AsConstInt(row)) return Combination(mat.at(*c), term);
  Expr e = Combination(mat.back(), term);
  for (int i = static_cast<int>(mat.size()) - 2; i >= 0; --i) {
    e = ir::if_then_else(row == I32(i), Combination(mat[i], term), e);
  }
  return e;
}

// (L x R^T)[i][j] for the square window x(a, b): sum_a L[i][a] sum_b R[j][b] x(a, b).
Expr Sandwich(const Matrix& left, const Expr& i, const Matrix& right, const Expr& j,
              const std::function<Expr(int, int)>& x) {
  return RowTimes(left, i,
                  [&](int a) { return RowTimes(right, j, [&](int b) { return x(a, b); }); });
}

}  // namespace

WinogradMatrices CookToom(int m, int r, const std::vector<double>& points) {
  const int alpha = m + r - 1;
  TESSEL_CHECK(m >= 1 && r >= 1 && static_cast<int>(points.size()) == alpha - 1)
      << "F(" << m << ", " << r << ") needs " << alpha - 1 << " finite points, got "
      << points.size();
  WinogradMatrices w;
  w.m = m;
  w.r = r;
  w.at.assign(m, std::vector<double>(alpha, 0.0));
  w.g.assign(alpha, std::vector<double>(r, 0.0));
  w.bt.assign(alpha, std::vector<double>(alpha, 0.0));
  for (int j = 0; j < alpha - 1; ++j) {
    const double x = points[j];
    std::vector<double> others;
    double denominator = 1;
    for (int l = 0; l < alpha - 1; ++l) {
      if (l == j) continue;
      TESSEL_CHECK(points[l] != x) << "interpolation point " << x << " repeats";
      others.push_back(points[l]);
      denominator *= x - points[l];
    }
    for (int i = 0; i < m; ++i) w.at[i][j] = std::pow(x, i);
    for (int k = 0; k < r; ++k) w.g[j][k] = std::pow(x, k) / denominator;
    const std::vector<double> n = PolyFromRoots(others);
    for (size_t k = 0; k < n.size(); ++k) w.bt[j][k] = n[k];
  }
  w.at[m - 1][alpha - 1] = 1;
  w.g[alpha - 1][r - 1] = 1;
  w.bt[alpha - 1] = PolyFromRoots(points);
  return w;
}

absl::StatusOr<WinogradMatrices> Winograd3x3(int m) {
  if (m == 2) return CookToom(2, 3, {0, 1, -1});
  if (m == 4) return CookToom(4, 3, {0, 1, -1, 0.5, -2});
  return absl::InvalidArgumentError(
      absl::StrCat("Winograd tile_size must be 2 or 4 for 3x3 kernels, got ", m));
}

std::vector<double> Winograd1D(const WinogradMatrices& mats, const std::vector<double>& d,
                               const std::vector<double>& g) {
  const int alpha = mats.alpha();
  TESSEL_CHECK(static_cast<int>(d.size()) == alpha && static_cast<int>(g.size()) == mats.r);
  std::vector<double> product(alpha);
  for (int j = 0; j < alpha; ++j) {
    double gg = 0, dd = 0;
    for (int k = 0; k < mats.r; ++k) gg += mats.g[j][k] * g[k];
    for (int k = 0; k < alpha; ++k) dd += mats.bt[j][k] * d[k];
    product[j] = gg * dd;
  }
  std::vector<double> y(mats.m, 0.0);
  for (int i = 0; i < mats.m; ++i) {
    for (int j = 0; j < alpha; ++j) y[i] += mats.at[i][j] * product[j];
  }
  return y;
}

te::Tensor WinogradWeightTransform(const te::Tensor& weight, const WinogradMatrices& mats,
                                   int64_t oc_padded, int64_t ic_padded, int64_t panel) {
  const int64_t oc = ConstDim(weight, 0), ic = ConstDim(weight, 1);
  TESSEL_CHECK(panel >= 1 && oc_padded >= oc && ic_padded >= ic && oc_padded % panel == 0);
  const int alpha = mats.alpha();
  const bool padded = oc_padded != oc || ic_padded != ic;
  return te::compute({I32(alpha), I32(alpha), I32(oc_padded / panel), I32(ic_padded), I32(panel)},
                     [&](Var eps, Var nu, Var ob, Var i, Var oi) {
                       Expr o = ob * static_cast<int>(panel) + oi;
                       Expr value = Sandwich(mats.g, eps, mats.g, nu,
                                             [&](int a, int b) { return weight(o, i, a, b); });
                       if (!padded) return value;
                       return ir::if_then_else(o < static_cast<int>(oc) && i < static_cast<int>(ic),
                                               value, F32(0));
                     },
                     "winograd_weight", {"eps", "nu", "ob", "i", "oi"});
}

void WinogradWeightTransformHost(const float* weight, int64_t oc, int64_t ic,
                                 const WinogradMatrices& mats, int64_t oc_padded, int64_t ic_padded,
                                 int64_t panel, float* out) {
  const int alpha = mats.alpha(), r = mats.r;
  TESSEL_CHECK(panel >= 1 && oc_padded >= oc && ic_padded >= ic && oc_padded % panel == 0);
  const int64_t plane = oc_padded * ic_padded;
  std::fill(out, out + alpha * alpha * plane, 0.0f);
  std::vector<double> gw(alpha * r), u(alpha * alpha);
  for (int64_t o = 0; o < oc; ++o) {
    for (int64_t i = 0; i < ic; ++i) {
      const float* w = weight + (o * ic + i) * r * r;
      // gw = G w, then u = gw G^T.
      for (int e = 0; e < alpha; ++e) {
        for (int b = 0; b < r; ++b) {
          double s = 0;
          for (int a = 0; a < r; ++a) s += mats.g[e][a] * w[a * r + b];
          gw[e * r + b] = s;
        }
      }
      for (int e = 0; e < alpha; ++e) {
        for (int n = 0; n < alpha; ++n) {
          double s = 0;
          for (int b = 0; b < r; ++b) s += gw[e * r + b] * mats.g[n][b];
          u[e * alpha + n] = s;
        }
      }
      const int64_t offset = (o / panel * ic_padded + i) * panel + o % panel;
      for (int en = 0; en < alpha * alpha; ++en) {
        out[en * plane + offset] = static_cast<float>(u[en]);
      }
    }
  }
}

te::Tensor WinogradPadInput(const te::Tensor& data, const WinogradGeometry& geo) {
  const Conv2dAttrs& c = geo.conv;
  const int64_t top = c.pad[0], left = c.pad[1];
  const bool pad_top = top > 0, pad_left = left > 0;
  const bool pad_bottom = geo.padded_h() > c.h + top, pad_right = geo.padded_w() > c.w + left;
  std::vector<Expr> shape{data.shape()[0], data.shape()[1], I32(geo.padded_h()),
                          I32(geo.padded_w()), data.shape()[4]};
  return te::compute(shape,
                     [&](Var n, Var cb, Var y, Var x, Var ci) {
                       Expr iy = y - static_cast<int>(top), ix = x - static_cast<int>(left);
                       Expr inside;
                       auto require = [&](Expr cond) {
                         inside = inside.defined() ? (inside && cond) : cond;
                       };
                       if (pad_top) require(iy >= 0);
                       if (pad_bottom) require(iy < static_cast<int>(c.h));
                       if (pad_left) require(ix >= 0);
                       if (pad_right) require(ix < static_cast<int>(c.w));
                       Expr value = data(n, cb, iy, ix, ci);
                       return inside.defined() ? ir::if_then_else(inside, value, F32(0)) : value;
                     },
                     "winograd_pad", {"n", "cb", "y", "x", "ci"});
}

te::Tensor WinogradDataTransform(const te::Tensor& padded, const WinogradMatrices& mats,
                                 const WinogradGeometry& geo, int64_t tiles_padded) {
  const int64_t tiles = geo.tiles(), th = geo.tiles_h(), tw = geo.tiles_w();
  TESSEL_CHECK(tiles_padded >= tiles);
  const int64_t block = ConstDim(padded, 4);
  const int64_t channels = ConstDim(padded, 1) * block;
  const int alpha = mats.alpha(), m = mats.m;
  return te::compute({I32(alpha), I32(alpha), I32(tiles_padded), I32(channels)},
                     [&](Var eps, Var nu, Var p, Var c) {
                       Expr tile = tiles_padded > tiles ? ir::min(p, I32(tiles - 1)) : Expr(p);
                       Expr n = tile / static_cast<int>(th * tw);
                       Expr y0 = tile / static_cast<int>(tw) % static_cast<int>(th) * m;
                       Expr x0 = tile % static_cast<int>(tw) * m;
                       Expr cb = c / static_cast<int>(block), ci = c % static_cast<int>(block);
                       return Sandwich(mats.bt, eps, mats.bt, nu, [&](int a, int b) {
                         return padded(n, cb, y0 + a, x0 + b, ci);
                       });
                     },
                     "winograd_data", {"eps", "nu", "p", "c"});
}

te::Tensor WinogradBatchedGemm(const te::Tensor& v, const te::Tensor& u) {
  const int64_t alpha = ConstDim(v, 0), tiles = ConstDim(v, 2), channels = ConstDim(v, 3);
  const int64_t panel = ConstDim(u, 4), oc_padded = ConstDim(u, 2) * panel;
  TESSEL_CHECK(ConstDim(u, 0) == alpha && ConstDim(u, 3) == channels);
  ir::IterVar k = te::reduce_axis({I32(0), I32(channels)}, "k");
  return te::compute({I32(alpha), I32(alpha), I32(tiles), I32(oc_padded)},
                     [&](Var eps, Var nu, Var p, Var o) {
                       return te::sum(v(eps, nu, p, k) * u(eps, nu, o / static_cast<int>(panel), k,
                                                           o % static_cast<int>(panel)),
                                      {k});
                     },
                     "winograd_gemm", {"eps", "nu", "p", "o"});
}

te::Tensor WinogradInverseTransform(const te::Tensor& mm, const WinogradMatrices& mats,
                                    const WinogradGeometry& geo, int64_t block) {
  const int64_t oc_padded = ConstDim(mm, 3);
  TESSEL_CHECK(block >= 1 && oc_padded % block == 0);
  const int64_t th = geo.tiles_h(), tw = geo.tiles_w();
  const int m = mats.m;
  return te::compute(
      {I32(geo.conv.n), I32(oc_padded / block), I32(th), I32(m), I32(tw), I32(m), I32(block)},
      [&](const std::vector<Var>& v) {
        const Var &n = v[0], &ob = v[1], &ty = v[2], &vh = v[3], &tx = v[4], &vw = v[5], &c = v[6];
        Expr p = (n * static_cast<int>(th) + ty) * static_cast<int>(tw) + tx;
        Expr o = ob * static_cast<int>(block) + c;
        return Sandwich(mats.at, vh, mats.at, vw, [&](int a, int b) { return mm(a, b, p, o); });
      },
      "winograd_inverse", {"n", "ob", "th", "vh", "tw", "vw", "c"});
}

}  // namespace tessel::ops::nn
