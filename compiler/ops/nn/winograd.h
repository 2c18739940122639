#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/te/tensor.h"

// Winograd convolution F(m x m, r x r) for stride-1 convolutions (Lavin & Gray, "Fast Algorithms
// for Convolutional Neural Networks"): each m x m output tile is
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A
// over the alpha x alpha input tile d (alpha = m + r - 1) and the r x r kernel g, summed over input
// channels between the element-wise product and the inverse transform, which makes that sum a
// batch of alpha * alpha independent matrix products [tiles x ic] x [ic x oc].
//
// The computes below are written for any block sizes; the transforms' matrix entries appear as
// constants selected by the transform axes (an if_then_else chain over the row index), so a
// schedule that unrolls those axes gets straight-line code with zero entries dropped and +-1
// entries as plain additions. Index arithmetic is int32; shapes are constants.
namespace tessel::ops::nn {

using Matrix = std::vector<std::vector<double>>;

struct WinogradMatrices {
  int m = 0;  // output tile size
  int r = 0;  // kernel size
  int alpha() const { return m + r - 1; }
  Matrix at;  // A^T, m x alpha: the inverse (output) transform
  Matrix g;   // G, alpha x r: the kernel transform
  Matrix bt;  // B^T, alpha x alpha: the data transform
};

// The Cook-Toom construction of F(m, r) from m + r - 2 distinct finite interpolation points and
// the point at infinity. With M(x) = prod_j (x - a_j) and N_j(x) = M(x) / (x - a_j):
//   A^T[i][j] = a_j^i,  A^T[i][inf] = [i == m - 1]
//   G[j][k]   = a_j^k / N_j(a_j),  G[inf][k] = [k == r - 1]
//   B^T[j][n] = coefficient of x^n in N_j(x),  B^T[inf][n] = coefficient of x^n in M(x)
// (the linear-convolution algorithm of Toom-Cook, transposed into a correlation, with the
// Lagrange denominators moved into G). Wrong sizes or repeated points are a bug (a check).
WinogradMatrices CookToom(int m, int r, const std::vector<double>& points);

// The matrices used for 3 x 3 kernels: m = 2 with points 0, 1, -1; m = 4 with points
// 0, 1, -1, 1/2, -2 (in float32 about 3x more accurate than Lavin's 0, +-1, +-2, and every B^T
// and A^T entry a short binary fraction). Other m: InvalidArgument naming tile_size.
absl::StatusOr<WinogradMatrices> Winograd3x3(int m);

// y[i] = sum_k d[i + k] g[k], i < m, through the transforms in double: A^T [(G g) (.) (B^T d)].
std::vector<double> Winograd1D(const WinogradMatrices& mats, const std::vector<double>& d,
                               const std::vector<double>& g);

// How a stride-1 3 x 3 convolution is cut into m x m output tiles. The tiles cover
// tiles_h * m x tiles_w * m outputs; those past oh x ow are computed from zeros and dropped.
struct WinogradGeometry {
  Conv2dAttrs conv;  // kh = kw = 3, stride 1, dilation 1, groups 1
  int m = 4;
  int alpha() const { return m + 2; }
  int64_t tiles_h() const { return (conv.oh() + m - 1) / m; }
  int64_t tiles_w() const { return (conv.ow() + m - 1) / m; }
  int64_t tiles() const { return conv.n * tiles_h() * tiles_w(); }
  // The padded input the tiles read: rows and columns [0, tiles * m + 2).
  int64_t padded_h() const { return tiles_h() * m + 2; }
  int64_t padded_w() const { return tiles_w() * m + 2; }
};

// Kernel transform, pre-packed for the batched product. weight: OIHW [oc, ic, 3, 3].
//   U[eps][nu][o / panel][i][o % panel] = (G w[o][i] G^T)[eps][nu]
// for o < oc_padded, i < ic_padded (multiples of panel and >= oc, ic), zero where o >= oc or
// i >= ic. With panel 1 and no padding this is the plain [alpha, alpha, oc, ic] form.
te::Tensor WinogradWeightTransform(const te::Tensor& weight, const WinogradMatrices& mats,
                                   int64_t oc_padded, int64_t ic_padded, int64_t panel);

// The same on the host in double (what a graph compiler's constant folding computes), rounded
// to float once. weight: OIHW float32, out: the layout above.
void WinogradWeightTransformHost(const float* weight, int64_t oc, int64_t ic,
                                 const WinogradMatrices& mats, int64_t oc_padded, int64_t ic_padded,
                                 int64_t panel, float* out);

// The zero-padded input the tiles read, in NCHW{block}c:
//   data   [n, ic_padded / block, h, w, block]
//   result [n, ic_padded / block, padded_h, padded_w, block],
//   result[.., y, x, c] = data[.., y - pad_top, x - pad_left, c] inside the input, else 0.
// Without any padding to add this is data itself (an element-wise copy compute_inline removes).
te::Tensor WinogradPadInput(const te::Tensor& data, const WinogradGeometry& geo);

// Data transform: V[eps][nu][p][c] = (B^T d_{p,c} B)[eps][nu] for tile p < tiles_padded and
// channel c < ic_padded, where d_{p,c} is the alpha x alpha window at (th * m, tw * m) of tile
// p = (n * tiles_h + th) * tiles_w + tw of `padded` (WinogradPadInput's form). Tiles from
// geo.tiles() on (row padding for the product's register tiles) repeat the last tile.
te::Tensor WinogradDataTransform(const te::Tensor& padded, const WinogradMatrices& mats,
                                 const WinogradGeometry& geo, int64_t tiles_padded);

// The batched product: M[eps][nu][p][o] = sum_c V[eps][nu][p][c] * U[eps][nu][o / panel][c][o %
// panel].
te::Tensor WinogradBatchedGemm(const te::Tensor& v, const te::Tensor& u);

// Inverse transform into NCHW{block}c with whole tiles:
//   Y[n][ob][th][vh][tw][vw][c] = (A^T M_{p,o} A)[vh][vw],  p = (n * tiles_h + th) * tiles_w + tw,
//   o = ob * block + c, for ob < oc_padded / block.
// Its memory is that of [n, oc_padded / block, tiles_h * m, tiles_w * m, block]; rows and columns
// from oh, ow on are the dropped overhang.
te::Tensor WinogradInverseTransform(const te::Tensor& mm, const WinogradMatrices& mats,
                                    const WinogradGeometry& geo, int64_t block);

}  // namespace tessel::ops::nn
