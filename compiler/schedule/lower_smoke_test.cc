// First end-to-end check: a matmul, default and tiled schedules, and a conv2d, lowered and run on
// each backend against naive C++ loops.
#include <gtest/gtest.h>

#include "compiler/codegen/interp/interp.h"
#include "compiler/ir/printer.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/testing/backends.h"
#include "compiler/testing/host_tensor.h"
#include "compiler/testing/workloads.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::schedule {
namespace {

using ir::Var;
using testing::HostTensor;

class LowerSmokeTest : public ::testing::TestWithParam<testing::Backend> {};

TEST_P(LowerSmokeTest, MatmulDefaultAndTiled) {
  const int n = 13, m = 11, l = 9;
  Tensor A = te::placeholder({n, l}, ir::kFloat32, "A");
  Tensor B = te::placeholder({l, m}, ir::kFloat32, "B");
  IterVar k = te::reduce_axis({0, l}, "k");
  Tensor C = te::compute(
      {n, m}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  std::mt19937 rng(1);
  HostTensor a({n, l}), b({l, m}), expected({n, m});
  a.FillRandom(rng);
  b.FillRandom(rng);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float acc = 0;
      for (int p = 0; p < l; ++p) acc += a.f32()[i * l + p] * b.f32()[p * m + j];
      expected.f32()[i * m + j] = acc;
    }
  for (int variant = 0; variant < 2; ++variant) {
    Schedule s = create_schedule({C.op()});
    if (variant == 1) {
      const auto& axis = C.op().as<te::ComputeOpNode>()->axis;
      auto t = s[C].tile(axis[0], axis[1], 4, 4);
      ASSERT_TRUE(t.ok()) << t.status();
      auto ks = s[C].split(k, 2);
      ASSERT_TRUE(ks.ok());
      ASSERT_TRUE(
          s[C].reorder({t->x_outer, t->y_outer, ks->outer, t->x_inner, ks->inner, t->y_inner})
              .ok());
    }
    transforms::LowerOptions options;
    options.verify_each_pass = true;
    absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {A, B, C}, "matmul", options);
    ASSERT_TRUE(f.ok()) << f.status();
    HostTensor c({n, m});
    absl::Status st = testing::RunOn(GetParam(), *f, {a.dl(), b.dl(), c.dl()});
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_EQ(testing::Compare(c, expected), "") << "variant " << variant;
  }
}

TEST_P(LowerSmokeTest, Conv2dStride2PaddingAgainstNaiveLoops) {
  const int c = 3, size = 9, f = 4, kernel = 3, stride = 2, pad = 1;
  testing::Conv2d w = testing::MakeConv2d(1, c, size, f, kernel, stride, pad);
  const int out = (size + 2 * pad - kernel) / stride + 1;
  std::mt19937 rng(2);
  HostTensor a({1, c, size, size}), wt({f, c, kernel, kernel}), got({1, f, out, out}),
      expected({1, f, out, out});
  a.FillRandom(rng);
  wt.FillRandom(rng);
  for (int o = 0; o < f; ++o)
    for (int y = 0; y < out; ++y)
      for (int x = 0; x < out; ++x) {
        float acc = 0;
        for (int ic = 0; ic < c; ++ic)
          for (int ky = 0; ky < kernel; ++ky)
            for (int kx = 0; kx < kernel; ++kx) {
              const int iy = y * stride + ky - pad, ix = x * stride + kx - pad;
              if (iy < 0 || iy >= size || ix < 0 || ix >= size) continue;
              acc += a.f32()[(ic * size + iy) * size + ix] *
                     wt.f32()[((o * c + ic) * kernel + ky) * kernel + kx];
            }
        expected.f32()[(o * out + y) * out + x] = acc;
      }
  absl::StatusOr<ir::PrimFunc> fn =
      transforms::Lower(create_schedule({w.C.op()}), w.args, "conv2d");
  ASSERT_TRUE(fn.ok()) << fn.status();
  ASSERT_TRUE(testing::RunOn(GetParam(), *fn, {a.dl(), wt.dl(), got.dl()}).ok());
  EXPECT_EQ(testing::Compare(got, expected, 1e-5, 1e-5), "");
}

INSTANTIATE_TEST_SUITE_P(Backends, LowerSmokeTest, ::testing::ValuesIn(testing::AllBackends()),
                         testing::BackendParamName());

}  // namespace
}  // namespace tessel::schedule
