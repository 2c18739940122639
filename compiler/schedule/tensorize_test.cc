// Tensorize: a 4x4 matmul intrinsic, declared with its computation and an implementation written
// in IR on strided buffers, replaces the inner nest of a tiled 64x64 matmul; the interpreter runs
// the intrinsic's statements. A nest that does not compute what the intrinsic computes is refused.
#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/testing/schedule_check.h"
#include "compiler/testing/workloads.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::schedule {
namespace {

using ir::Expr;
using ir::Stmt;
using ir::Var;

// c[i, j] (+)= sum_k a[i, k] * b[k, j] over 4x4 tiles, as loops on the intrinsic's buffers.
te::TensorIntrin Gemm4x4(bool plus_one = false) {
  Tensor a = te::placeholder({4, 4}, ir::kFloat32, "a");
  Tensor b = te::placeholder({4, 4}, ir::kFloat32, "b");
  ir::IterVar k = te::reduce_axis({0, 4}, "k");
  Tensor c = te::compute(
      {4, 4},
      [&](Var i, Var j) {
        Expr product = a(i, k) * b(k, j);
        return te::sum(plus_one ? product + 1.0f : product, {k});
      },
      "c");
  return te::decl_tensor_intrin(
      c,
      [](const std::vector<ir::Buffer>& in, const std::vector<ir::Buffer>& out) {
        auto reset = [&](const char* tag) {
          Var i(std::string("ri") + tag), j(std::string("rj") + tag);
          return ir::For(
              i, 0, 4, ir::ForKind::kSerial,
              ir::For(j, 0, 4, ir::ForKind::kSerial, ir::BufferStore(out[0], 0.0f, {i, j})));
        };
        auto update = [&](const char* tag) {
          Var i(std::string("ui") + tag), j(std::string("uj") + tag), k(std::string("uk") + tag);
          Expr acc = ir::BufferLoad(out[0], {i, j}) +
                     ir::BufferLoad(in[0], {i, k}) * ir::BufferLoad(in[1], {k, j});
          return ir::For(i, 0, 4, ir::ForKind::kSerial,
                         ir::For(j, 0, 4, ir::ForKind::kSerial,
                                 ir::For(k, 0, 4, ir::ForKind::kSerial,
                                         ir::BufferStore(out[0], acc, {i, j}))));
        };
        return te::TensorIntrinBodies{ir::SeqStmt({reset("0"), update("0")}), reset("1"),
                                      update("1")};
      },
      "gemm4x4");
}

// Every test runs the scheduled program on each backend (the reference on the interpreter).
class TensorizeTest : public ::testing::TestWithParam<testing::Backend> {};

TEST_P(TensorizeTest, Gemm4x4ReplacesTheInnerNestOfATiledMatmul) {
  testing::Matmul w = testing::MakeMatmul(64, 64, 64);
  Schedule s = create_schedule({w.C.op()});
  const auto& axis = w.C.op().as<te::ComputeOpNode>()->axis;
  auto t = s[w.C].tile(axis[0], axis[1], 4, 4);
  auto k = s[w.C].split(w.k, 4);
  ASSERT_TRUE(t.ok() && k.ok());
  ASSERT_TRUE(
      s[w.C].reorder({t->x_outer, t->y_outer, k->outer, t->x_inner, t->y_inner, k->inner}).ok());
  ASSERT_TRUE(s[w.C].tensorize(t->x_inner, Gemm4x4()).ok());

  absl::Status same = testing::CheckAgainstUnscheduled(s, w.args, 2, 12, GetParam());
  EXPECT_TRUE(same.ok()) << same;

  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, w.args, "matmul");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = ir::ToString(*f);
  // The intrinsic's own loops replaced the tile's: reset outside k.outer, update inside.
  EXPECT_NE(text.find("for (ri1, 0, 4)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (uk1, 0, 4)"), std::string::npos) << text;
  EXPECT_EQ(text.find("k.inner"), std::string::npos) << text;
  EXPECT_LT(text.find("ri1"), text.find("k.outer")) << text;
}

TEST_P(TensorizeTest, WholeReductionInsideUsesTheFullBody) {
  testing::Matmul w = testing::MakeMatmul(8, 8, 4);
  Schedule s = create_schedule({w.C.op()});
  const auto& axis = w.C.op().as<te::ComputeOpNode>()->axis;
  auto t = s[w.C].tile(axis[0], axis[1], 4, 4);
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(s[w.C].tensorize(t->x_inner, Gemm4x4()).ok());
  absl::Status same = testing::CheckAgainstUnscheduled(s, w.args, 2, 13, GetParam());
  EXPECT_TRUE(same.ok()) << same;
}

TEST(TensorizeTest, NonMatchingNestIsRefused) {
  testing::Matmul w = testing::MakeMatmul(64, 64, 64);
  const auto& axis = w.C.op().as<te::ComputeOpNode>()->axis;
  {
    // The reduction loop inside the tile covers 64 iterations, not 4.
    Schedule s = create_schedule({w.C.op()});
    auto t = s[w.C].tile(axis[0], axis[1], 4, 4);
    ASSERT_TRUE(s[w.C].tensorize(t->x_inner, Gemm4x4()).ok());
    auto f = transforms::Lower(s, w.args, "matmul");
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().message(),
              "stage C: cannot tensorize axis i.inner with gemm4x4: axis k covers 64 iterations, "
              "the intrinsic's k 4");
  }
  {
    // The intrinsic computes something else.
    Schedule s = create_schedule({w.C.op()});
    auto t = s[w.C].tile(axis[0], axis[1], 4, 4);
    auto k = s[w.C].split(w.k, 4);
    ASSERT_TRUE(
        s[w.C].reorder({t->x_outer, t->y_outer, k->outer, t->x_inner, t->y_inner, k->inner}).ok());
    ASSERT_TRUE(s[w.C].tensorize(t->x_inner, Gemm4x4(/*plus_one=*/true)).ok());
    auto f = transforms::Lower(s, w.args, "matmul");
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().message().substr(0, 61),
              "stage C: cannot tensorize axis i.inner with gemm4x4: the nest")
        << f.status();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorizeTest, ::testing::ValuesIn(testing::AllBackends()),
                         testing::BackendParamName());

}  // namespace
}  // namespace tessel::schedule
