// Vector code: Ramp and Broadcast, contiguous, strided and gathered vector loads and stores,
// lane-wise operations, and if_then_else laziness lane by lane.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"
#include "compiler/testing/backends.h"

namespace tessel::interp {
namespace {

using testing::HostTensor;
using testing::Loop;

// Every test runs on the interpreter and through the LLVM backend (one body, two backends).
class VectorTest : public ::testing::TestWithParam<tessel::testing::Backend> {
 protected:
  absl::Status Run(const ir::PrimFunc& f, const std::vector<Arg>& args) {
    return tessel::testing::RunOn(GetParam(), f, args);
  }
};

constexpr int kLanes = 4;

TEST_P(VectorTest, VectorizedAddWithRampAndBroadcast) {
  const int n = 16;
  ir::Buffer a = ir::Buffer::Declare("A", {n}, ir::kFloat32);
  ir::Buffer b = ir::Buffer::Declare("B", {n}, ir::kFloat32);
  ir::Buffer c = ir::Buffer::Declare("C", {n}, ir::kFloat32);
  ir::Var i("i");
  ir::Expr index = ir::Ramp(i * kLanes, 1, kLanes);
  ir::Expr sum = ir::Add(ir::Add(ir::BufferLoad(a, {index}), ir::BufferLoad(b, {index})),
                         ir::Broadcast(ir::Expr(1.5f), kLanes));
  ir::PrimFunc f("vadd", {a->data, b->data, c->data}, {a, b, c},
                 Loop(i, n / kLanes, ir::BufferStore(c, sum, {index})));
  HostTensor<float> ta({n}), tb({n}), tc({n});
  for (int k = 0; k < n; ++k) {
    ta[k] = 0.25f * k;
    tb[k] = 100.0f - k;
  }
  ASSERT_TRUE(Run(f, {ta.dl(), tb.dl(), tc.dl()}).ok());
  for (int k = 0; k < n; ++k) EXPECT_EQ(tc[k], ta[k] + tb[k] + 1.5f) << k;
}

TEST_P(VectorTest, StridedVectorLoad) {
  // out[4i .. 4i+3] = in[8i], in[8i+2], in[8i+4], in[8i+6]
  const int n = 12;
  ir::Buffer in = ir::Buffer::Declare("in", {2 * n}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {n}, ir::kInt32);
  ir::Var i("i");
  ir::Stmt body = ir::BufferStore(out, ir::BufferLoad(in, {ir::Ramp(i * 8, 2, kLanes)}),
                                  {ir::Ramp(i * kLanes, 1, kLanes)});
  ir::PrimFunc f("strided", {in->data, out->data}, {in, out}, Loop(i, n / kLanes, body));
  HostTensor<int32_t> tin({2 * n}), tout({n});
  for (int k = 0; k < 2 * n; ++k) tin[k] = 1000 + k;
  ASSERT_TRUE(Run(f, {tin.dl(), tout.dl()}).ok());
  for (int k = 0; k < n; ++k) EXPECT_EQ(tout[k], 1000 + 2 * k) << k;
}

TEST_P(VectorTest, GatherAndScatterWithArbitraryVectorIndices) {
  // out[perm[k]] = data[perm[k]] * 2 for a vector of permuted indices.
  const int n = 8;
  ir::Buffer perm = ir::Buffer::Declare("perm", {n}, ir::kInt32);
  ir::Buffer data = ir::Buffer::Declare("data", {n}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {n}, ir::kInt32);
  ir::Var i("i");
  ir::Expr where = ir::BufferLoad(perm, {ir::Ramp(i * kLanes, 1, kLanes)});
  ir::Stmt body = ir::BufferStore(
      out, ir::Mul(ir::BufferLoad(data, {where}), ir::Broadcast(2, kLanes)), {where});
  ir::PrimFunc f("gather", {perm->data, data->data, out->data}, {perm, data, out},
                 Loop(i, n / kLanes, body));
  HostTensor<int32_t> tperm({n}), tdata({n}), tout({n});
  tperm.values = {5, 2, 7, 0, 1, 6, 3, 4};
  for (int k = 0; k < n; ++k) tdata[k] = 10 * k + 1;
  ASSERT_TRUE(Run(f, {tperm.dl(), tdata.dl(), tout.dl()}).ok());
  for (int k = 0; k < n; ++k) EXPECT_EQ(tout[k], 2 * tdata[k]) << k;
}

TEST_P(VectorTest, TwoDimensionalVectorAccessAndLaneWiseOperations) {
  // out[r, 4c .. 4c+3] = select(A[r, ramp] > 0, A[r, ramp], -A[r, ramp]) via a vector Let.
  const int rows = 3, cols = 8;
  ir::Buffer a = ir::Buffer::Declare("A", {rows, cols}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {rows, cols}, ir::kInt32);
  ir::Var r("r"), c("c"), v("v", ir::DataType::Int(32, kLanes));
  ir::Expr cols_ramp = ir::Ramp(c * kLanes, 1, kLanes);
  ir::Expr zero = ir::Broadcast(0, kLanes);
  ir::Expr abs_v = ir::Let(v, ir::BufferLoad(a, {r, cols_ramp}),
                           ir::Select(ir::GT(v, zero), v, ir::Sub(zero, v)));
  ir::PrimFunc f(
      "abs2d", {a->data, out->data}, {a, out},
      Loop(r, rows, Loop(c, cols / kLanes, ir::BufferStore(out, abs_v, {r, cols_ramp}))));
  HostTensor<int32_t> ta({rows, cols}), tout({rows, cols});
  for (int k = 0; k < rows * cols; ++k) ta[k] = (k % 3 == 0 ? -1 : 1) * k;
  ASSERT_TRUE(Run(f, {ta.dl(), tout.dl()}).ok());
  for (int k = 0; k < rows * cols; ++k) EXPECT_EQ(tout[k], std::abs(ta[k])) << k;
}

TEST_P(VectorTest, VectorCastAndFloatIntrinsicApplyLaneWise) {
  const int n = 8;
  ir::Buffer a = ir::Buffer::Declare("A", {n}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {n}, ir::kFloat32);
  ir::Var i("i");
  ir::Expr index = ir::Ramp(i * kLanes, 1, kLanes);
  ir::Expr value = ir::sqrt(ir::Cast(ir::DataType::Float(32, kLanes), ir::BufferLoad(a, {index})));
  ir::PrimFunc f("vsqrt", {a->data, out->data}, {a, out},
                 Loop(i, n / kLanes, ir::BufferStore(out, value, {index})));
  HostTensor<int32_t> ta({n});
  HostTensor<float> tout({n});
  for (int k = 0; k < n; ++k) ta[k] = k * k + 1;
  ASSERT_TRUE(Run(f, {ta.dl(), tout.dl()}).ok());
  for (int k = 0; k < n; ++k) EXPECT_EQ(tout[k], std::sqrt(static_cast<float>(k * k + 1))) << k;
}

// if_then_else evaluates only the taken branch: reads past the end of A in the untaken branch
// are fine, for a scalar condition and lane by lane for a vector condition.
TEST_P(VectorTest, IfThenElseIsLazyPerLane) {
  const int n = 10, padded = 12;
  ir::Buffer a = ir::Buffer::Declare("A", {n}, ir::kFloat32);
  ir::Buffer out = ir::Buffer::Declare("out", {padded}, ir::kFloat32);
  ir::Buffer out2 = ir::Buffer::Declare("out2", {padded}, ir::kFloat32);
  ir::Var i("i"), j("j");
  ir::Expr index = ir::Ramp(i * kLanes, 1, kLanes);
  ir::Expr vector_pad =
      ir::Call(ir::DataType::Float(32, kLanes), ir::Intrinsic::kIfThenElse,
               {ir::LT(index, ir::Broadcast(n, kLanes)), ir::BufferLoad(a, {index}),
                ir::Broadcast(ir::Expr(-1.0f), kLanes)});
  ir::Expr scalar_pad = ir::if_then_else(j < n, ir::BufferLoad(a, {j}), ir::Expr(-2.0f));
  ir::PrimFunc f("pad", {a->data, out->data, out2->data}, {a, out, out2},
                 ir::SeqStmt({Loop(i, padded / kLanes, ir::BufferStore(out, vector_pad, {index})),
                              Loop(j, padded, ir::BufferStore(out2, scalar_pad, {j}))}));
  HostTensor<float> ta({n}), tout({padded}), tout2({padded});
  for (int k = 0; k < n; ++k) ta[k] = 3.0f * k;
  const absl::Status status = Run(f, {ta.dl(), tout.dl(), tout2.dl()});
  ASSERT_TRUE(status.ok()) << status;
  for (int k = 0; k < padded; ++k) {
    EXPECT_EQ(tout[k], k < n ? 3.0f * k : -1.0f) << k;
    EXPECT_EQ(tout2[k], k < n ? 3.0f * k : -2.0f) << k;
  }
}

// Select evaluates both branches, so the same guarded read is out of bounds: a fault only the
// interpreter detects (compiled code does not check bounds).
TEST(VectorInterpTest, SelectEvaluatesBothBranches) {
  const int n = 10;
  ir::Buffer a = ir::Buffer::Declare("A", {n}, ir::kFloat32);
  ir::Buffer out = ir::Buffer::Declare("out", {n + 1}, ir::kFloat32);
  ir::Var j("j");
  ir::Expr guarded = ir::Select(j < n, ir::BufferLoad(a, {j}), ir::Expr(0.0f));
  ir::PrimFunc f("select_pad", {a->data, out->data}, {a, out},
                 Loop(j, n + 1, ir::BufferStore(out, guarded, {j})));
  HostTensor<float> ta({n}), tout({n + 1});
  const absl::Status status = interp::Run(f, {ta.dl(), tout.dl()});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("out-of-bounds load from buffer 'A' at A[j]: index 10 is "
                                  "outside [0, 10)"),
            absl::string_view::npos)
      << status;
}

INSTANTIATE_TEST_SUITE_P(Backends, VectorTest, ::testing::ValuesIn(tessel::testing::AllBackends()),
                         tessel::testing::BackendParamName());

}  // namespace
}  // namespace tessel::interp
