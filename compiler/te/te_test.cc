// Tensor expressions: declarations build the index formulas and dataflow the scheduler expects.
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/te/tensor_intrin.h"

namespace tessel::te {
namespace {

using ir::Expr;
using ir::IterVar;
using ir::Var;

TEST(TeTest, MatmulDeclaresAReduction) {
  Tensor A = placeholder({64, 32}, ir::kFloat32, "A");
  Tensor B = placeholder({32, 48}, ir::kFloat32, "B");
  IterVar k = reduce_axis({0, 32}, "k");
  Tensor C = compute(
      {64, 48}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  const auto* op = C.op().as<ComputeOpNode>();
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->is_reduction());
  EXPECT_EQ(op->reduce_axis.size(), 1u);
  EXPECT_EQ(ir::ToString(op->shape[0]), "64");
  std::vector<Tensor> inputs = op->InputTensors();
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_TRUE(SameTensor(inputs[0], A));
  EXPECT_TRUE(SameTensor(inputs[1], B));
  EXPECT_EQ(ir::ToString(op->body[0]),
            "reduce((x0), (y0) -> ((x0 + y0)) from (0.0f), ((A(i, k) * B(k, j))), axis=[k in [0, "
            "32)])");
  EXPECT_EQ(PostOrderOperations({C.op()}).size(), 3u);
}

TEST(TeTest, ArgmaxIsATwoValueReduction) {
  Tensor A = placeholder({8, 16}, ir::kFloat32, "A");
  Reducer argmax = comm_reducer(
      [](const std::vector<Var>& x, const std::vector<Var>& y) {
        return std::vector<Expr>{ir::select(x[1] >= y[1], x[0], y[0]), ir::max(x[1], y[1])};
      },
      [](const std::vector<ir::DataType>& t) {
        return std::vector<Expr>{ir::IntImm(t[0], -1), ir::MinValue(t[1])};
      },
      "argmax");
  IterVar k = reduce_axis({0, 16}, "k");
  std::vector<Tensor> out = compute_multi(
      {8},
      [&](const std::vector<Var>& v) {
        return argmax({Expr(k->var), A(v[0], k)}, {k});
      },
      "argmax");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype(), ir::kInt32);
  EXPECT_EQ(out[1].dtype(), ir::kFloat32);
  EXPECT_EQ(out[1].name(), "argmax.v1");
  EXPECT_FALSE(SameTensor(out[0], out[1]));
  EXPECT_TRUE(SameTensor(out[1], out[1].op().output(1)));
}

TEST(TeTest, TensorIntrinsicBindsSymbolicBuffers) {
  Tensor a = placeholder({4, 4}, ir::kFloat32, "a");
  Tensor b = placeholder({4, 4}, ir::kFloat32, "b");
  IterVar k = reduce_axis({0, 4}, "k");
  Tensor c = compute(
      {4, 4}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "c");
  TensorIntrin gemm = decl_tensor_intrin(
      c,
      [](const std::vector<ir::Buffer>& ins, const std::vector<ir::Buffer>& outs) {
        auto call = [&](const char* fn) {
          return ir::Evaluate(
              ir::Call(ir::kInt32, ir::Intrinsic::kCallExtern,
                       {ir::StringImm(fn), ins[0]->data, ins[1]->data, outs[0]->data}));
        };
        return TensorIntrinBodies{call("gemm4x4"), call("fill_zero"), call("gemm4x4_update")};
      },
      "gemm4x4");
  ASSERT_EQ(gemm->buffers.size(), 3u);
  EXPECT_EQ(gemm->buffers[2]->strides.size(), 2u);
  EXPECT_NE(gemm->buffers[0]->elem_offset.as<ir::VarNode>(), nullptr);
}

}  // namespace
}  // namespace tessel::te
