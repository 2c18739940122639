// Build for `vdla` end to end: the conv2d_int8.vdla template's fallback built into a vdla module,
// its inputs copied to the device's DRAM, run on the RTL, the outputs copied back and compared
// with a convolution computed here; the module saved and loaded gives the same; misuse is named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/codegen/build.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/runtime/vdla/vdla_module.h"
#include "compiler/target/target_facts.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::codegen::vdla {
namespace {

using runtime::NDArray;
using ::testing::HasSubstr;

constexpr int kC = 32, kO = 16, kH = 6, kW = 5, kK = 3;  // pad 1, stride 1

const ops::OpArgs kArgs = {{"n", 1},   {"ic", kC}, {"h", kH},  {"w", kW},
                           {"oc", kO}, {"kh", kK}, {"kw", kK}, {"pad", {1, 1, 1, 1}}};

// The int32 sums' low 8 bits, directly from the definition.
std::vector<int8_t> Convolve(const NDArray& data, const NDArray& weight) {
  const int8_t* d = data.data<int8_t>();
  const int8_t* w = weight.data<int8_t>();
  std::vector<int8_t> out;
  for (int o = 0; o < kO; ++o) {
    for (int y = 0; y < kH; ++y) {
      for (int x = 0; x < kW; ++x) {
        int32_t sum = 0;
        for (int c = 0; c < kC; ++c) {
          for (int ky = 0; ky < kK; ++ky) {
            for (int kx = 0; kx < kK; ++kx) {
              const int iy = y + ky - 1, ix = x + kx - 1;
              if (iy < 0 || iy >= kH || ix < 0 || ix >= kW) continue;
              sum += d[(c * kH + iy) * kW + ix] * w[((o * kC + c) * kK + ky) * kK + kx];
            }
          }
        }
        out.push_back(static_cast<int8_t>(static_cast<uint8_t>(sum & 0xff)));
      }
    }
  }
  return out;
}

struct Compiled {
  ops::OpProgram program;
  runtime::Module module;
};

Compiled Compile() {
  const target::TargetFacts facts = *target::DescribeTarget(*target::Target::Parse("vdla"));
  absl::StatusOr<ops::Instantiated> in =
      ops::InstantiateFallback(**ops::FindTemplate("conv2d_int8.vdla"), kArgs, facts);
  EXPECT_TRUE(in.ok()) << in.status();
  absl::StatusOr<runtime::Module> module =
      Build({*transforms::Lower(in->program.schedule, in->program.args, "conv")}, facts.target);
  EXPECT_TRUE(module.ok()) << module.status();
  return {in->program, *module};
}

void ExpectConvolves(const ops::OpProgram& program, const runtime::Module& module) {
  EXPECT_EQ(module.kind(), "vdla");
  absl::StatusOr<runtime::Function> f = module.GetFunction("conv");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<NDArray> inputs = ops::RandomInputs(program.logical_inputs, 4);
  absl::StatusOr<std::vector<NDArray>> out =
      ops::RunLogical(program, *f, inputs, DLDevice{kDLExtDev, 0});
  ASSERT_TRUE(out.ok()) << out.status();
  const int8_t* got = (*out)[0].data<int8_t>();
  EXPECT_EQ(std::vector<int8_t>(got, got + kO * kH * kW), Convolve(inputs[0], inputs[1]));
  absl::StatusOr<hardware::vdla::RunReport> report = runtime::vdla::LastRunReport();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->macs, int64_t{kO} * kH * kW * kC * kK * kK);
  EXPECT_GT(report->cycles, report->macs / 256);
}

TEST(VdlaBackendTest, BuildsAModuleThatConvolvesOnTheDevice) {
  Compiled c = Compile();
  ExpectConvolves(c.program, c.module);
}

TEST(VdlaBackendTest, ASavedModuleLoadsAndRunsTheSame) {
  Compiled c = Compile();
  const std::string path =
      (std::filesystem::path(std::getenv("TEST_TMPDIR")) / "conv.vdla.json").string();
  ASSERT_TRUE(c.module.Save(path).ok());
  absl::StatusOr<runtime::Module> loaded = runtime::vdla::LoadVdlaModule(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectConvolves(c.program, *loaded);
  std::ofstream(path) << "{\"format\": \"tessel-cuda-module\", \"version\": 1}";
  EXPECT_THAT(runtime::vdla::LoadVdlaModule(path).status().message(),
              HasSubstr("not a tessel-vdla-module of version 1"));
}

TEST(VdlaBackendTest, HostTensorsAreRefusedByName) {
  Compiled c = Compile();
  absl::StatusOr<runtime::Function> f = c.module.GetFunction("conv");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<NDArray> inputs = ops::RandomInputs(c.program.logical_inputs, 4);
  // On the host instead of the device.
  absl::StatusOr<std::vector<NDArray>> out = ops::RunLogical(c.program, *f, inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("this function takes tensors on ext_dev"));
}

}  // namespace
}  // namespace tessel::codegen::vdla
