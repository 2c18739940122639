// The Winograd transforms: the Cook-Toom matrices against direct convolution in double (1-D and
// 2-D), the te computes (compiled with their default schedules) against a direct convolution in
// double and the host kernel transform.
#include "compiler/ops/nn/winograd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "compiler/codegen/build.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/compute.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::nn {
namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};

std::vector<double> RandomVector(int size, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(size);
  for (double& x : v) x = dist(rng);
  return v;
}

runtime::NDArray RandomArray(std::vector<int64_t> shape, std::mt19937& rng) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), kF32);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = dist(rng);
  return a;
}

TEST(WinogradMatricesTest, OneDimensionalMatchesDirectConvolution) {
  std::mt19937 rng(1);
  for (int m : {2, 4}) {
    absl::StatusOr<WinogradMatrices> mats = Winograd3x3(m);
    ASSERT_TRUE(mats.ok()) << mats.status();
    ASSERT_EQ(mats->alpha(), m + 2);
    for (int trial = 0; trial < 100; ++trial) {
      const std::vector<double> d = RandomVector(m + 2, rng), g = RandomVector(3, rng);
      const std::vector<double> y = Winograd1D(*mats, d, g);
      for (int i = 0; i < m; ++i) {
        const double want = d[i] * g[0] + d[i + 1] * g[1] + d[i + 2] * g[2];
        EXPECT_NEAR(y[i], want, 1e-13) << "F(" << m << ",3) output " << i;
      }
    }
  }
}

TEST(WinogradMatricesTest, CookToomWithOtherPointsAndKernelSizes) {
  // Lavin's F(4,3) points and an F(3,2): the construction, not just the two chosen point sets.
  std::mt19937 rng(2);
  for (const auto& [m, r, points] : std::vector<std::tuple<int, int, std::vector<double>>>{
           {4, 3, {0, 1, -1, 2, -2}}, {3, 2, {0, 1, -1}}, {2, 5, {0, 1, -1, 2, -2}}}) {
    const WinogradMatrices mats = CookToom(m, r, points);
    const std::vector<double> d = RandomVector(m + r - 1, rng), g = RandomVector(r, rng);
    const std::vector<double> y = Winograd1D(mats, d, g);
    for (int i = 0; i < m; ++i) {
      double want = 0;
      for (int k = 0; k < r; ++k) want += d[i + k] * g[k];
      EXPECT_NEAR(y[i], want, 1e-12) << "F(" << m << "," << r << ") output " << i;
    }
  }
  // Lavin's published B^T for F(2,3) (rows up to sign): the integer structure of the method.
  const WinogradMatrices f23 = CookToom(2, 3, {0, 1, -1});
  EXPECT_EQ(f23.bt[1], (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(f23.bt[2], (std::vector<double>{0, -1, 1, 0}));
}

TEST(WinogradMatricesTest, TwoDimensionalMatchesDirectCorrelation) {
  // Y = A^T [(G g G^T) (.) (B^T d B)] A, the nesting the computes use.
  std::mt19937 rng(3);
  for (int m : {2, 4}) {
    const WinogradMatrices w = *Winograd3x3(m);
    const int a = w.alpha();
    const std::vector<double> d = RandomVector(a * a, rng), g = RandomVector(9, rng);
    std::vector<double> u(a * a, 0), v(a * a, 0), prod(a * a);
    for (int i = 0; i < a; ++i) {
      for (int j = 0; j < a; ++j) {
        for (int x = 0; x < 3; ++x) {
          for (int y = 0; y < 3; ++y) u[i * a + j] += w.g[i][x] * g[x * 3 + y] * w.g[j][y];
        }
        for (int x = 0; x < a; ++x) {
          for (int y = 0; y < a; ++y) v[i * a + j] += w.bt[i][x] * d[x * a + y] * w.bt[j][y];
        }
        prod[i * a + j] = u[i * a + j] * v[i * a + j];
      }
    }
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) {
        double got = 0, want = 0;
        for (int x = 0; x < a; ++x) {
          for (int y = 0; y < a; ++y) got += w.at[i][x] * prod[x * a + y] * w.at[j][y];
        }
        for (int x = 0; x < 3; ++x) {
          for (int y = 0; y < 3; ++y) want += d[(i + x) * a + j + y] * g[x * 3 + y];
        }
        EXPECT_NEAR(got, want, 1e-12) << "F(" << m << "x" << m << ") output " << i << "," << j;
      }
    }
  }
}

TEST(WinogradMatricesTest, OtherTileSizesAreRefused) {
  absl::StatusOr<WinogradMatrices> mats = Winograd3x3(3);
  ASSERT_FALSE(mats.ok());
  EXPECT_NE(mats.status().message().find("tile_size"), std::string::npos) << mats.status();
}

// Lowers and compiles the default schedule of `out` for this host.
runtime::Function Compile(const std::vector<te::Tensor>& args, const std::string& name) {
  schedule::Schedule s = schedule::create_schedule({args.back().op()});
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, args, name);
  EXPECT_TRUE(f.ok()) << f.status();
  absl::StatusOr<runtime::Module> module = codegen::Build({*f}, *target::Target::Parse("llvm"));
  EXPECT_TRUE(module.ok()) << module.status();
  absl::StatusOr<runtime::Function> fn = module->GetFunction(name);
  EXPECT_TRUE(fn.ok()) << fn.status();
  return *fn;
}

TEST(WinogradComputeTest, WeightTransformMatchesHost) {
  std::mt19937 rng(4);
  // (oc, ic, oc_padded, ic_padded, panel): plain, and padded into panels.
  for (const auto& [oc, ic, ocp, icp, panel] :
       std::vector<std::array<int64_t, 5>>{{4, 3, 4, 3, 1}, {5, 3, 32, 16, 16}, {8, 8, 16, 8, 8}}) {
    for (int m : {2, 4}) {
      const WinogradMatrices mats = *Winograd3x3(m);
      const int a = mats.alpha();
      te::Tensor w = te::placeholder({ir::IntImm(ir::kInt32, oc), ir::IntImm(ir::kInt32, ic),
                                      ir::IntImm(ir::kInt32, 3), ir::IntImm(ir::kInt32, 3)},
                                     ir::kFloat32, "w");
      te::Tensor u = WinogradWeightTransform(w, mats, ocp, icp, panel);
      runtime::Function f = Compile({w, u}, "weight_transform");
      runtime::NDArray wa = RandomArray({oc, ic, 3, 3}, rng);
      runtime::NDArray ua = runtime::NDArray::Empty({a, a, ocp / panel, icp, panel}, kF32);
      ASSERT_TRUE(f({wa.dl(), ua.dl()}).ok());
      std::vector<float> want(ua.NumElements());
      WinogradWeightTransformHost(wa.data<float>(), oc, ic, mats, ocp, icp, panel, want.data());
      for (int64_t i = 0; i < ua.NumElements(); ++i) {
        ASSERT_NEAR(ua.data<float>()[i], want[i], 1e-5 * (1 + std::fabs(want[i])))
            << "element " << i << " of F(" << m << ") oc=" << oc << " ic=" << ic;
      }
    }
  }
}

// Direct 3x3 correlation in double on NCHW with padding (top, left, bottom, right).
std::vector<double> DirectConv(const runtime::NDArray& data, const runtime::NDArray& weight,
                               const Conv2dAttrs& c) {
  const float* x = data.data<float>();
  const float* w = weight.data<float>();
  std::vector<double> y(c.n * c.oc * c.oh() * c.ow(), 0.0);
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t o = 0; o < c.oc; ++o) {
      for (int64_t oy = 0; oy < c.oh(); ++oy) {
        for (int64_t ox = 0; ox < c.ow(); ++ox) {
          double s = 0;
          for (int64_t i = 0; i < c.ic; ++i) {
            for (int ky = 0; ky < 3; ++ky) {
              for (int kx = 0; kx < 3; ++kx) {
                const int64_t iy = oy + ky - c.pad[0], ix = ox + kx - c.pad[1];
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                s += static_cast<double>(x[((n * c.ic + i) * c.h + iy) * c.w + ix]) *
                     w[((o * c.ic + i) * 3 + ky) * 3 + kx];
              }
            }
          }
          y[((n * c.oc + o) * c.oh() + oy) * c.ow() + ox] = s;
        }
      }
    }
  }
  return y;
}

TEST(WinogradComputeTest, ComputesChainMatchesDirectConvolution) {
  // Block 1 (plain NCHW), block 2 with padded channels; odd sizes and asymmetric padding so
  // tiles overhang the output and the padding differs per side.
  std::mt19937 rng(5);
  struct Case {
    int m;
    int64_t n, ic, h, w, oc;
    std::array<int64_t, 4> pad;
    int64_t block, panel, tiles_padded_extra;
  };
  for (const Case& k : std::vector<Case>{{2, 2, 3, 7, 9, 4, {1, 1, 1, 1}, 1, 1, 0},
                                         {4, 1, 3, 13, 17, 5, {1, 0, 2, 1}, 2, 2, 3},
                                         {4, 1, 4, 6, 6, 2, {0, 0, 0, 0}, 2, 2, 1}}) {
    Conv2dAttrs c;
    c.n = k.n, c.ic = k.ic, c.h = k.h, c.w = k.w, c.oc = k.oc, c.kh = 3, c.kw = 3, c.pad = k.pad;
    const WinogradGeometry geo{c, k.m};
    const WinogradMatrices mats = *Winograd3x3(k.m);
    const int64_t icp = (c.ic + k.block - 1) / k.block * k.block;
    const int64_t ocp = (c.oc + k.block - 1) / k.block * k.block;
    auto dim = [](int64_t v) { return ir::IntImm(ir::kInt32, v); };
    te::Tensor data = te::placeholder(
        {dim(c.n), dim(icp / k.block), dim(c.h), dim(c.w), dim(k.block)}, ir::kFloat32, "data");
    te::Tensor w = te::placeholder({dim(c.oc), dim(c.ic), dim(3), dim(3)}, ir::kFloat32, "w");
    te::Tensor u = WinogradWeightTransform(w, mats, ocp, icp, k.panel);
    te::Tensor padded = WinogradPadInput(data, geo);
    te::Tensor v = WinogradDataTransform(padded, mats, geo, geo.tiles() + k.tiles_padded_extra);
    te::Tensor mm = WinogradBatchedGemm(v, u);
    te::Tensor y = WinogradInverseTransform(mm, mats, geo, k.block);
    runtime::Function f = Compile({data, w, y}, "winograd_chain");

    runtime::NDArray x = RandomArray({c.n, c.ic, c.h, c.w}, rng);
    runtime::NDArray wa = RandomArray({c.oc, c.ic, 3, 3}, rng);
    // NCHW -> NCHW{block}c with zero channels.
    runtime::NDArray xb = runtime::NDArray::Empty({c.n, icp / k.block, c.h, c.w, k.block}, kF32);
    std::fill(xb.data<float>(), xb.data<float>() + xb.NumElements(), 0.0f);
    for (int64_t n = 0; n < c.n; ++n) {
      for (int64_t i = 0; i < c.ic; ++i) {
        for (int64_t p = 0; p < c.h * c.w; ++p) {
          xb.data<float>()[((n * (icp / k.block) + i / k.block) * c.h * c.w + p) * k.block +
                           i % k.block] = x.data<float>()[(n * c.ic + i) * c.h * c.w + p];
        }
      }
    }
    const int64_t hh = geo.tiles_h() * k.m, ww = geo.tiles_w() * k.m;
    runtime::NDArray ya = runtime::NDArray::Empty(
        {c.n, ocp / k.block, geo.tiles_h(), k.m, geo.tiles_w(), k.m, k.block}, kF32);
    ASSERT_TRUE(f({xb.dl(), wa.dl(), ya.dl()}).ok());
    const std::vector<double> want = DirectConv(x, wa, c);
    for (int64_t n = 0; n < c.n; ++n) {
      for (int64_t o = 0; o < c.oc; ++o) {
        for (int64_t oy = 0; oy < c.oh(); ++oy) {
          for (int64_t ox = 0; ox < c.ow(); ++ox) {
            const float got =
                ya.data<float>()[(((n * (ocp / k.block) + o / k.block) * hh + oy) * ww + ox) *
                                     k.block +
                                 o % k.block];
            const double expect = want[((n * c.oc + o) * c.oh() + oy) * c.ow() + ox];
            ASSERT_NEAR(got, expect, 1e-4 * (1 + std::fabs(expect)))
                << "F(" << k.m << ") output n=" << n << " o=" << o << " y=" << oy << " x=" << ox;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessel::ops::nn
