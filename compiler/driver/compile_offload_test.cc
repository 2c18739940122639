// A quantized network with its convolutions and dense layer offloaded to VDLA (the RTL simulator)
// against the same quantized network compiled for the CPU alone: bit for bit. The network:
// testing::SmallResNet (test_graphs.h), whose first 3-channel convolution VDLA does not take and
// whose classifier's 10 outputs VDLA computes padded to a block of 16.
#include <gtest/gtest.h>

#include <cstring>

#include "baselines/torch/graph_reference.h"
#include "compiler/driver/compile_model.h"
#include "compiler/driver/quantize_model.h"
#include "compiler/driver/test_graphs.h"
#include "compiler/runtime/vdla/vdla_module.h"
#include "compiler/support/check.h"
#include "compiler/target/target.h"

namespace tessel::driver {
namespace {

using runtime::NDArray;
using testing::RandomArray;

constexpr DLDataType kFloat32{kDLFloat, 32, 1};

graph::Graph SmallResNet() {
  absl::StatusOr<testing::TestGraph> t = testing::SmallResNet();
  TESSEL_CHECK(t.ok()) << t.status().message();
  return std::move(t->graph);
}

std::vector<NDArray> Image(uint32_t seed) {
  return {RandomArray({1, 3, 16, 16}, kFloat32, -1, 1, seed)};
}

NDArray RunOnce(const CompiledModel& m, const std::vector<NDArray>& in) {
  absl::StatusOr<runtime::GraphExecutor> e = MakeExecutor(m);
  EXPECT_TRUE(e.ok()) << e.status();
  absl::StatusOr<std::vector<NDArray>> out = e->Run(in);
  EXPECT_TRUE(out.ok()) << out.status();
  return (*out)[0];
}

target::Target Parse(const std::string& text) {
  absl::StatusOr<target::Target> t = target::Target::Parse(text);
  TESSEL_CHECK(t.ok()) << t.status().message();
  return *t;
}

TEST(CompileOffloadTest, VdlaLayersEqualTheCpuBitForBit) {
  const graph::Graph g = SmallResNet();
  absl::StatusOr<QuantizedModel> q = QuantizeForAccelerator(g, Parse("vdla"), {Image(1), Image(2)});
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->layers, 7);
  EXPECT_EQ(q->quantized, 6);  // all but the first convolution
  ASSERT_EQ(q->kept_float.size(), 1u);
  EXPECT_NE(q->kept_float[0].find("conv1"), std::string::npos) << q->kept_float[0];

  absl::StatusOr<CompiledModel> cpu = Compile(q->graph, Parse("llvm"), nullptr);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->NumOffloaded(), 0);
  absl::StatusOr<CompiledModel> offloaded =
      Compile(q->graph, Parse("llvm"), nullptr, {.offload = "vdla"});
  ASSERT_TRUE(offloaded.ok()) << offloaded.status();
  EXPECT_EQ(offloaded->NumOffloaded(), 6);  // distinct (shape, shift, relu) tasks

  const std::vector<NDArray> image = Image(3);
  const NDArray want = RunOnce(*cpu, image);
  const runtime::vdla::RunTotals before = runtime::vdla::Totals();
  const NDArray got = RunOnce(*offloaded, image);
  const runtime::vdla::RunTotals after = runtime::vdla::Totals();
  EXPECT_EQ(after.runs - before.runs, 6);
  EXPECT_GT(after.cycles, before.cycles);
  ASSERT_EQ(want.NumBytes(), got.NumBytes());
  EXPECT_EQ(std::memcmp(want.data<float>(), got.data<float>(), want.NumBytes()), 0);

  // And the quantized graph on the CPU is what libtorch computes of it (its float parts to
  // rounding), near the float network.
  absl::StatusOr<std::vector<NDArray>> reference = baselines::EvaluateReference(q->graph, image);
  absl::StatusOr<std::vector<NDArray>> exact = baselines::EvaluateReference(g, image);
  ASSERT_TRUE(reference.ok() && exact.ok());
  double worst = 0, err = 0, norm = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double w = want.data<float>()[i];
    worst = std::max(worst, std::abs(w - (*reference)[0].data<float>()[i]));
    const double e = (*exact)[0].data<float>()[i];
    err += (w - e) * (w - e);
    norm += e * e;
  }
  EXPECT_LT(worst, 1e-3);
  EXPECT_LT(std::sqrt(err / norm), 0.1);
}

TEST(CompileOffloadTest, RefusesAGpuMainTarget) {
  absl::StatusOr<CompiledModel> m =
      Compile(SmallResNet(), Parse("opencl"), nullptr, {.offload = "vdla"});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("the main target must be a CPU"), std::string::npos)
      << m.status();
}

TEST(CompileOffloadTest, QuantizationNeedsCalibrationInputs) {
  absl::StatusOr<QuantizedModel> q = QuantizeForAccelerator(SmallResNet(), Parse("vdla"), {});
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("calibration"), std::string::npos);
}

}  // namespace
}  // namespace tessel::driver
