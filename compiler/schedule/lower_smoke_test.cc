// First end-to-end check: a matmul, default and tiled schedules, lowered and interpreted.
#include <gtest/gtest.h>

#include <iostream>

#include "compiler/codegen/interp/interp.h"
#include "compiler/ir/printer.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/testing/host_tensor.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::schedule {
namespace {

using ir::Var;
using testing::HostTensor;

TEST(LowerSmokeTest, MatmulDefaultAndTiled) {
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
    std::cout << *f;
    absl::StatusOr<interp::Program> p = interp::Program::Compile(*f);
    ASSERT_TRUE(p.ok()) << p.status();
    HostTensor c({n, m});
    absl::Status st = p->Run({a.dl(), b.dl(), c.dl()});
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_EQ(testing::Compare(c, expected), "") << "variant " << variant;
  }
}

}  // namespace
}  // namespace tessel::schedule
