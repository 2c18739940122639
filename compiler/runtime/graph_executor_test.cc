// The executor on hand-written plans around one small kernel: every way a kernel input is
// obtained and an output delivered, channel packing, input checks and plan checks.
#include "compiler/runtime/graph_executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/codegen/build.h"
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
  absl::StatusOr<Module> m = codegen::Build({*f}, *target::Target::Parse("llvm"));
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
  s2.result_mode = ResultMode::kFinish;
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
  std::fill(dst.data<float>(), dst.data<float>() + 16, 7.0f);  // padding is written, not assumed
  ASSERT_TRUE(PackChannelsInto(src, dst).ok());
  // [n, c / 2, h, w, 2]: channel c at block c / 2, lane c % 2; channel 3 is padding.
  const std::vector<float> want = {1, 5, 2, 6, 3, 7, 4, 8, 9, 0, 10, 0, 11, 0, 12, 0};
  EXPECT_EQ(std::vector<float>(dst.data<float>(), dst.data<float>() + 16), want);
}

TEST(GraphExecutorTest, UnpacksChannelsDroppingPadding) {
  // [n, C / b, H, W, b] = [1, 2, 3, 3, 2] (18 pixels of 4 channels) -> [1, 3, 2, 2]: channel 3,
  // row 2 and column 2 dropped.
  NDArray src = Iota({1, 2, 3, 3, 2}, 0);
  NDArray dst = NDArray::Empty({1, 3, 2, 2}, kF32);
  ASSERT_TRUE(UnpackChannelsInto(src, dst).ok());
  std::vector<float> want;
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 2; ++x)
        want.push_back(static_cast<float>(((c / 2 * 3 + y) * 3 + x) * 2 + c % 2));
    }
  }
  EXPECT_EQ(std::vector<float>(dst.data<float>(), dst.data<float>() + 12), want);
}

// A step whose kernel writes channel blocks the executor unpacks: the kernel's 16 outputs viewed
// as [1, 1, 2, 2, 4] give a [1, 3, 2, 2] value (channel 3 dropped).
TEST(GraphExecutorTest, UnpackStepsWriteTheValue) {
  ExecutorPlan plan;
  plan.values = {{"x", k4x4, {}}, {"y", {{1, 3, 2, 2}, kF32}, {}}};
  plan.inputs = {0};
  plan.outputs = {1};
  plan.parameters = {Iota({16}, 100)};
  plan.steps = {{.name = "s",
                 .kernel = AddKernel(),
                 .inputs = {0},
                 .outputs = {1},
                 .args = {{Source::kReshape, 0, k16}, {Source::kParameter, 0, k16}},
                 .results = {k16},
                 .result_mode = ResultMode::kUnpackChannels,
                 .blocked = {{{1, 1, 2, 2, 4}, kF32}}}};
  absl::StatusOr<GraphExecutor> exec = GraphExecutor::Create(plan);
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<std::vector<NDArray>> out = exec->Run({Iota({4, 4}, 0)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int c = 0; c < 3; ++c) {
    for (int p = 0; p < 4; ++p) {
      const int k = p * 4 + c;  // the kernel's element: pixel p, lane c
      EXPECT_EQ((*out)[0].data<float>()[c * 4 + p], static_cast<float>(k + 100 + k));
    }
  }
  plan.steps[0].blocked = {{{1, 1, 2, 2, 2}, kF32}};
  EXPECT_THAT(std::string(GraphExecutor::Create(plan).status().message()),
              HasSubstr("kernel output 0 (unpack_channels) is float32[16], the value "
                        "float32[1, 3, 2, 2]"));
}

// x -> a -> b -> c -> d, each + p: a and c can share a storage, b and d cannot (d is the output).
ExecutorPlan Chain() {
  ExecutorPlan plan;
  plan.values = {{"x", k16, {}}, {"a", k16, {}}, {"b", k16, {}}, {"c", k16, {}}, {"d", k16, {}}};
  plan.inputs = {0};
  plan.outputs = {4};
  plan.parameters = {Iota({16}, 1)};
  const Function add = AddKernel();
  for (int v = 0; v < 4; ++v) {
    plan.steps.push_back({.name = plan.values[static_cast<size_t>(v + 1)].name,
                          .kernel = add,
                          .inputs = {v},
                          .outputs = {v + 1},
                          .args = {{Source::kInput, 0, k16}, {Source::kParameter, 0, k16}},
                          .results = {k16}});
  }
  plan.storage_of = {-1, 0, 1, 0, 2};
  plan.storage_bytes = {64, 64, 64};
  return plan;
}

TEST(GraphExecutorTest, ValuesShareTheMemoryPlansStorages) {
  ExecutorPlan planned = Chain();
  absl::StatusOr<GraphExecutor> exec = GraphExecutor::Create(planned);
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->AllocatedBytes(), 64 + 3 * 64);  // the input and three storages
  for (float start : {0.0f, 5.0f}) {
    absl::StatusOr<std::vector<NDArray>> out = exec->Run({Iota({16}, start)});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int i = 0; i < 16; ++i) EXPECT_EQ((*out)[0].data<float>()[i], start + i + 4 * (1 + i));
  }
  ExecutorPlan unplanned = Chain();
  unplanned.storage_of.clear();
  unplanned.storage_bytes.clear();
  absl::StatusOr<GraphExecutor> separate = GraphExecutor::Create(unplanned);
  ASSERT_TRUE(separate.ok()) << separate.status();
  EXPECT_EQ(separate->AllocatedBytes(), 64 + 4 * 64);
}

TEST(GraphExecutorTest, MemoryPlansThatOverwriteLiveValuesAreInternalErrors) {
  auto error = [](const ExecutorPlan& plan) {
    absl::StatusOr<GraphExecutor> exec = GraphExecutor::Create(plan);
    EXPECT_FALSE(exec.ok());
    EXPECT_TRUE(exec.ok() || absl::IsInternal(exec.status())) << exec.status();
    return exec.ok() ? std::string() : std::string(exec.status().message());
  };
  ExecutorPlan b_and_c = Chain();  // c is written while b is read
  b_and_c.storage_of = {-1, 0, 1, 1, 2};
  EXPECT_THAT(error(b_and_c), HasSubstr("'c' (written at step 2) and 'b' (live through step 2) "
                                        "share storage 1"));
  ExecutorPlan a_and_c_and_b = Chain();  // a, then b over a's storage while a is read
  a_and_c_and_b.storage_of = {-1, 0, 0, 1, 2};
  EXPECT_THAT(error(a_and_c_and_b), HasSubstr("'b' (written at step 1) and 'a'"));
  ExecutorPlan output_shared = Chain();  // d with a: a is dead by then, but d is an output
  output_shared.storage_of = {-1, 0, 1, 2, 0};
  EXPECT_THAT(error(output_shared), HasSubstr("graph output 'd' shares storage 0"));
  ExecutorPlan input_placed = Chain();
  input_placed.storage_of = {2, 0, 1, 0, -1};
  EXPECT_THAT(error(input_placed), HasSubstr("graph input 'x' is placed in a storage"));
  ExecutorPlan too_small = Chain();
  too_small.storage_bytes = {64, 60, 64};
  EXPECT_THAT(error(too_small), HasSubstr("'b' (64 bytes) does not fit storage 1 (60 bytes)"));
  ExecutorPlan wrong_size = Chain();
  wrong_size.storage_of.pop_back();
  EXPECT_THAT(error(wrong_size), HasSubstr("storage_of has 4 entries for 5 values"));
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

// Channel packing and unpacking run on the host only: a plan for a device with either is an
// internal error naming the node (checked before anything is allocated there).
TEST(GraphExecutorTest, DevicePlansCannotPackOrUnpackChannels) {
  ExecutorPlan pack;
  pack.values = {{"x", {{1, 3, 2, 2}, kF32}, {}}, {"y", {{1, 1, 2, 2, 4}, kF32}, {}}};
  pack.inputs = {0};
  pack.outputs = {1};
  pack.parameters = {Iota({16}, 0)};
  pack.steps = {{.name = "p",
                 .kernel = AddKernel(),
                 .inputs = {0},
                 .outputs = {1},
                 .args = {{Source::kPackChannels, 0, {{1, 1, 2, 2, 4}, kF32}},
                          {Source::kParameter, 0, k16}},
                 .results = {{{1, 1, 2, 2, 4}, kF32}}}};
  pack.device = {kDLOpenCL, 0};
  EXPECT_THAT(std::string(GraphExecutor::Create(pack).status().message()),
              HasSubstr("node 'p': kernel input 0 (pack_channels): channels are packed on the "
                        "host only"));
}

}  // namespace
}  // namespace tessel::runtime
