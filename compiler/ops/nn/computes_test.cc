// The operator computes outside convolution and matrices: errors of bad attributes (each names
// the attribute or the mismatching shape), the structure graph compilers rely on (element-wise
// operators are single non-reducing computes that compute_inline absorbs), and an inlined
// chain compiled and compared with a hand computation. Numerics against libtorch are the x86
// templates' tests (compiler/ops/x86/*_test.cc).
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/codegen/build.h"
#include "compiler/ops/nn/activation.h"
#include "compiler/ops/nn/batch_norm.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/pooling.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/softmax.h"
#include "compiler/ops/nn/transform.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/te/compute.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::nn {
namespace {

te::Tensor Input(const std::vector<int64_t>& shape, const std::string& name = "x") {
  return te::placeholder(ShapeExprs(shape), ir::kFloat32, name);
}

template <typename T>
void ExpectError(const absl::StatusOr<T>& r, const std::string& what) {
  ASSERT_FALSE(r.ok()) << "expected an error mentioning " << what;
  EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
}

TEST(ComputesTest, ElementwiseAreSingleInlinableStages) {
  te::Tensor x = Input({2, 3});
  for (const te::Tensor& t : {Relu(x), LeakyRelu(x, 0.1), Sigmoid(x), Tanh(x), Clip(x, -1, 1)}) {
    const auto* op = t.op().as<te::ComputeOpNode>();
    ASSERT_NE(op, nullptr);
    EXPECT_FALSE(op->is_reduction());
    ASSERT_EQ(op->InputTensors().size(), 1u);
    EXPECT_TRUE(te::SameTensor(op->InputTensors()[0], x));
  }
}

TEST(ComputesTest, BroadcastShapes) {
  EXPECT_EQ(*BroadcastShape({2, 1, 5}, {3, 1}), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(*BroadcastShape({1}, {4, 7}), (std::vector<int64_t>{4, 7}));
  EXPECT_EQ(*BroadcastShape({6, 5}, {4, 1, 6, 5}), (std::vector<int64_t>{4, 1, 6, 5}));
  ExpectError(BroadcastShape({2, 3}, {4}), "dimension -1 has extents 3 and 4");
  ExpectError(Binary(BinaryOp::kAdd, Input({2, 3}), Input({2, 2})), "cannot broadcast [2, 3]");
}

TEST(ComputesTest, TransformErrors) {
  ExpectError(Concatenate({}, 0), "no inputs");
  ExpectError(Concatenate({Input({2, 3}), Input({3, 3})}, 1), "input 1 of shape [3, 3]");
  ExpectError(Concatenate({Input({2, 3})}, 2), "concatenate axis is 2");
  ExpectError(ReshapeShape({2, 3}, {4, -1}), "cannot take newshape");
  ExpectError(ReshapeShape({2, 3}, {-1, -1}), "has entry -1");
  ExpectError(ReshapeShape({2, 3}, {5}), "does not hold the 6 elements");
  EXPECT_EQ(*ReshapeShape({2, 3, 4}, {-1, 4}), (std::vector<int64_t>{6, 4}));
  ExpectError(Flatten(Input({2, 3}), 3), "axis 3");
  ExpectError(Transpose(Input({2, 3}), {0, 0}), "repeats dimension 0");
  ExpectError(Transpose(Input({2, 3}), {0}), "has 1 entries");
  ExpectError(Pad(Input({2, 3}), {0}, {0, 0}, 0), "one entry per dimension");
  ExpectError(Pad(Input({2, 3}), {0, -1}, {0, 0}, 0), "must be >= 0");
}

TEST(ComputesTest, PoolingAndNormErrors) {
  Pool2DAttrs a;
  a.kernel = {3, 3};
  ExpectError(Pool2D(Input({1, 2, 8}), a), "rank 3");
  ExpectError(Pool2D(Input({1, 2, 2, 8}), a), "kernel 3 is larger than the padded input 2");
  a.stride = {0, 1};
  ExpectError(Pool2D(Input({1, 2, 8, 8}), a), "stride 0");
  EXPECT_EQ(*PoolOutputExtent(7, 3, 2, 0, 0, true), 3);
  EXPECT_EQ(*PoolOutputExtent(8, 3, 2, 1, 1, true), 5);
  // torch's rule: a last window starting in the trailing padding is dropped.
  EXPECT_EQ(*PoolOutputExtent(5, 2, 2, 1, 1, true), 3);
  ExpectError(GlobalPool2D(Input({2, 3}), PoolKind::kMax), "rank 2");

  te::Tensor c3 = Input({3}, "p");
  ExpectError(BatchNormInference(Input({1, 4, 2, 2}), c3, c3, c3, c3, 1e-5),
              "gamma must have shape [4]");
  ExpectError(BatchNormInference(Input({1, 3, 2, 2}), c3, c3, c3, c3, -1), "epsilon");
  ExpectError(Softmax(Input({2, 3}), 2), "softmax axis is 2");
  ExpectError(LogSoftmax(Input({2, 3}), -3), "log_softmax axis is -3");
}

// relu(a + b) * 2 with b broadcast per row, the add and relu inlined into the last stage.
TEST(ComputesTest, InlinedChainRuns) {
  te::Tensor a = Input({3, 5}, "a");
  te::Tensor b = Input({3, 1}, "b");
  absl::StatusOr<te::Tensor> sum = Binary(BinaryOp::kAdd, a, b);
  ASSERT_TRUE(sum.ok());
  te::Tensor r = Relu(*sum);
  absl::StatusOr<te::Tensor> out = Binary(BinaryOp::kMultiply, r, Input({1}, "k"));
  ASSERT_TRUE(out.ok());
  const te::Tensor k = out->op()->InputTensors()[1];
  schedule::Schedule s = schedule::create_schedule({out->op()});
  ASSERT_TRUE(s[sum->op()].compute_inline().ok());
  ASSERT_TRUE(s[r.op()].compute_inline().ok());
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, b, k, *out}, "chain");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<runtime::Module> m = codegen::Build({*f}, *target::Target::Parse("llvm"));
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<runtime::Function> fn = m->GetFunction("chain");
  ASSERT_TRUE(fn.ok()) << fn.status();
  const DLDataType f32{kDLFloat, 32, 1};
  runtime::NDArray av = runtime::NDArray::Empty({3, 5}, f32),
                   bv = runtime::NDArray::Empty({3, 1}, f32),
                   kv = runtime::NDArray::Empty({1}, f32),
                   ov = runtime::NDArray::Empty({3, 5}, f32);
  for (int i = 0; i < 15; ++i) av.data<float>()[i] = static_cast<float>(i) - 7;
  for (int i = 0; i < 3; ++i) bv.data<float>()[i] = static_cast<float>(i) - 1;
  kv.data<float>()[0] = 2;
  ASSERT_TRUE((*fn)({av.dl(), bv.dl(), kv.dl(), ov.dl()}).ok());
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) {
      const float want = 2 * std::max(av.data<float>()[i * 5 + j] + bv.data<float>()[i], 0.0f);
      EXPECT_EQ(ov.data<float>()[i * 5 + j], want) << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace tessel::ops::nn
