// The executor on hand-written plans around one small kernel: every way a kernel input is
// obtained and an output delivered, channel packing, input checks and plan checks.
#include "compiler/runtime/graph_executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/driver/build.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/compute.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;
using Source = KernelArg::Source;

constexpr DLDataType kF32{kDLFloat, 32, 1};

// C[i] = A[i] + B[i] over 16 floats.
Function AddKernel() {
  te::Tensor a = te::placeholder({ir::IntImm(ir::kInt32, 16)}, ir::kFloat32, "A");
  te::Tensor b = te::placeholder({ir::IntImm(ir::kInt32, 16)}, ir::kFloat32, "B");
  te::Tensor c = te::compute(
      {ir::IntImm(ir::kInt32, 16)}, [&](ir::Var i) { return a(i) + b(i); }, "C");
  schedule::Schedule s = schedule::create_schedule({c.op()});
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, b, c}, "add16");
  EXPECT_TRUE(f.ok()) << f.status();
  absl::StatusOr<Module> m = driver::Build({*f}, "llvm");
  EXPECT_TRUE(m.ok()) << m.status();
  return *m->GetFunction("add16");
}

NDArray Iota(std::vector<int64_t> shape, float start) {
  NDArray a = NDArray::Empty(std::move(shape), kF32);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = start + static_cast<float>(i);
  return a;
}

const TensorDesc k4x4{{4, 4}, kF32};
const TensorDesc k16{{16}, kF32};

// x [4, 4] -> y = x + p (kernel writes y under its own shape) -> z = 2 (y + p) (through finish)
// -> w = z + x (both through prepare).
ExecutorPlan ThreeSteps() {
  ExecutorPlan plan;
  plan.values = {{"x", k4x4, {}}, {"y", k4x4, {}}, {"z", k4x4, {}}, {"w", k4x4, {}}};
  plan.inputs = {0};
  plan.outputs = {3, 1};
  plan.parameters = {Iota({16}, 100)};
  const Function add = AddKernel();
  ExecutorStep s1{.name = "s1",
                  .kernel = add,
                  .inputs = {0},
                  .outputs = {1},
                  .args = {{Source::kReshape, 0, k16}, {Source::kParameter, 0, k16}},
                  .results = {k16}};
  ExecutorStep s2 = s1;
  s2.name = "s2";
  s2.inputs = {1};
  s2.outputs = {2};
  s2.use_finish = true;
  s2.finish = [](const std::vector<NDArray>& r) -> absl::StatusOr<std::vector<NDArray>> {
    NDArray out = NDArray::Empty({4, 4}, kF32);
    for (int i = 0; i < 16; ++i) out.data<float>()[i] = 2 * r[0].data<float>()[i];
    return std::vector<NDArray>{out};
  };
  ExecutorStep s3 = s1;
  s3.name = "s3";
  s3.inputs = {2, 0};
  s3.outputs = {3};
  s3.args = {{Source::kPrepare, 0, k16}, {Source::kPrepare, 1, k16}};
  s3.prepare = [](const std::vector<NDArray>& in) -> absl::StatusOr<std::vector<NDArray>> {
    std::vector<NDArray> out;
    for (const NDArray& a : in) {
      NDArray flat = NDArray::Empty({16}, kF32);
      EXPECT_TRUE(flat.CopyFromBytes(a.data<float>(), 64).ok());
      out.push_back(flat);
    }
    return out;
  };
  plan.steps = {s1, s2, s3};
  return plan;
}

TEST(GraphExecutorTest, RunsEveryKindOfStep) {
  absl::StatusOr<GraphExecutor> exec = GraphExecutor::Create(ThreeSteps());
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->InputNames(), std::vector<std::string>{"x"});
  EXPECT_EQ(exec->OutputNames(), (std::vector<std::string>{"w", "y"}));
  for (float start : {0.0f, 7.0f}) {  // twice: buffers are reused
    absl::StatusOr<std::vector<NDArray>> out = exec->Run({Iota({4, 4}, start)});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    for (int i = 0; i < 16; ++i) {
      const float x = start + i, p = 100.0f + i, y = x + p, z = 2 * (y + p);
      EXPECT_EQ((*out)[1].data<float>()[i], y);
      EXPECT_EQ((*out)[0].data<float>()[i], z + x);
    }
    EXPECT_EQ((*out)[0].shape(), (std::vector<int64_t>{4, 4}));
  }
}

TEST(GraphExecutorTest, PacksChannelsWithZeroPadding) {
  NDArray src = Iota({1, 3, 2, 2}, 1);
  NDArray dst = NDArray::Empty({1, 2, 2, 2, 2}, kF32);
  std::fill(dst.data<float>(), dst.data<float>() + 16, 0.0f);
  ASSERT_TRUE(PackChannelsInto(src, dst).ok());
  // [n, c / 2, h, w, 2]: channel c at block c / 2, lane c % 2; channel 3 is padding.
  const std::vector<float> want = {1, 5, 2, 6, 3, 7, 4, 8, 9, 0, 10, 0, 11, 0, 12, 0};
  EXPECT_EQ(std::vector<float>(dst.data<float>(), dst.data<float>() + 16), want);
}

TEST(GraphExecutorTest, InputsAreChecked) {
  absl::StatusOr<GraphExecutor> exec = GraphExecutor::Create(ThreeSteps());
  ASSERT_TRUE(exec.ok());
  EXPECT_THAT(std::string(exec->Run({}).status().message()),
              HasSubstr("takes 1 inputs (x), got 0"));
  EXPECT_THAT(std::string(exec->Run({Iota({16}, 0)}).status().message()),
              HasSubstr("input 'x' must be float32[4, 4], got float32[16]"));
  EXPECT_THAT(std::string(exec->Run({NDArray()}).status().message()), HasSubstr("got nothing"));
  EXPECT_EQ(*exec->FindInput("x"), 0);
  EXPECT_THAT(std::string(exec->FindInput("q").status().message()), HasSubstr("no input 'q'"));
}

TEST(GraphExecutorTest, BadPlansAreInternalErrorsNamingTheNode) {
  ExecutorPlan bad_parameter = ThreeSteps();
  bad_parameter.steps[0].args[1].index = 3;
  EXPECT_THAT(std::string(GraphExecutor::Create(bad_parameter).status().message()),
              HasSubstr("node 's1': kernel input 1 (parameter) is parameter 3 of 1"));
  ExecutorPlan out_of_order = ThreeSteps();
  std::swap(out_of_order.steps[0], out_of_order.steps[1]);
  EXPECT_THAT(std::string(GraphExecutor::Create(out_of_order).status().message()),
              HasSubstr("node 's2': reads value 1 before it is defined"));
  ExecutorPlan bad_view = ThreeSteps();
  bad_view.steps[0].args[0].type = {{15}, kF32};
  EXPECT_THAT(std::string(GraphExecutor::Create(bad_view).status().message()),
              HasSubstr("views float32[4, 4] as float32[15]"));
  // A finish that gives the wrong type is caught when it runs.
  ExecutorPlan bad_finish = ThreeSteps();
  bad_finish.steps[1].finish = [](const std::vector<NDArray>& r) {
    return absl::StatusOr<std::vector<NDArray>>(r);
  };
  absl::StatusOr<GraphExecutor> exec = GraphExecutor::Create(bad_finish);
  ASSERT_TRUE(exec.ok());
  EXPECT_THAT(std::string(exec->Run({Iota({4, 4}, 0)}).status().message()),
              HasSubstr("node 's2': finish output 0 is float32[16], the value float32[4, 4]"));
}

}  // namespace
}  // namespace tessel::runtime
