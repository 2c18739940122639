// The kernels of gpu/testing/gpu_kernels.h (vector add with a symbolic grid, shared-memory matmul
// with cooperative fetching and barriers, a reduction of exp, float4 accesses, virtual threads)
// built as OpenCL for `opencl` and `opencl -device=mali`, run on the OpenCL device here (PoCL) on
// random inputs, and compared with the reference interpreter on the same inputs; the output
// starts as NaN on both sides, so an element the kernel never writes fails. Skipped, with the
// reason, where there is no OpenCL platform.
//
// Tolerance: |opencl - interp| <= 1e-4 + 1e-4 * |interp| per element. The kernels sum in the
// schedule's order, as the interpreter does; OpenCL C may contract a * b + c into an FMA
// (FP_CONTRACT is on by default) and its exp is within 3 ulp (OpenCL 1.2's bound), both far below
// the tolerance for sums of 256 terms.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/codegen/build.h"
#include "compiler/codegen/gpu/testing/gpu_kernels.h"
#include "compiler/codegen/gpu/testing/run_check.h"
#include "compiler/codegen/opencl/build_opencl.h"
#include "compiler/runtime/opencl/opencl_api.h"

namespace tessel::codegen::opencl {
namespace {

constexpr DLDevice kCl0{kDLOpenCL, 0};
constexpr double kTolerance = 1e-4;
const char* const kTargets[] = {"opencl", "opencl -device=mali"};

// Runs k built for `target_text` (through Build's registry) and the interpreter on the same
// random inputs; compares the outputs.
void ExpectMatchesInterpreter(const gpu::testing::GpuKernel& k, const std::string& target_text,
                              int seed) {
  SCOPED_TRACE(target_text);
  std::ostringstream source;
  BuildOptions options;
  options.dump_ir = &source;
  absl::StatusOr<runtime::Module> built =
      Build({k.func}, *target::Target::Parse(target_text), options);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->kind(), "opencl");
  EXPECT_NE(source.str().find("__kernel "), std::string::npos) << source.str();

  gpu::testing::ExpectMatchesInterpreter(k, *built, kCl0, seed, kTolerance, "opencl",
                                         source.str());
}

class OpenclRunTest : public ::testing::TestWithParam<int> {};

TEST_P(OpenclRunTest, MatchesTheInterpreter) {
  absl::StatusOr<const runtime::opencl::Platform*> platform = runtime::opencl::GetPlatform();
  if (!platform.ok()) GTEST_SKIP() << platform.status().message();
  absl::StatusOr<std::vector<gpu::testing::GpuKernel>> all = gpu::testing::AllGpuKernels();
  ASSERT_TRUE(all.ok()) << all.status();
  const gpu::testing::GpuKernel& k = (*all)[GetParam()];
  SCOPED_TRACE(k.func->name);
  for (const char* target : kTargets) ExpectMatchesInterpreter(k, target, 17 + GetParam());
}

std::string KernelName(const ::testing::TestParamInfo<int>& info) {
  static const char* kNames[] = {"VectorAdd",   "SharedMatmul",  "RowSumExp",
                                 "Float4Scale", "VthreadAffine", "IndexReuse"};
  return kNames[info.param];
}

INSTANTIATE_TEST_SUITE_P(Kernels, OpenclRunTest, ::testing::Range(0, 6), KernelName);

// The vector add's grid is evaluated at each launch: other sizes run through the same module.
TEST(OpenclRunShapesTest, OneModuleServesEverySize) {
  absl::StatusOr<const runtime::opencl::Platform*> platform = runtime::opencl::GetPlatform();
  if (!platform.ok()) GTEST_SKIP() << platform.status().message();
  absl::StatusOr<gpu::testing::GpuKernel> k = gpu::testing::VectorAdd();
  ASSERT_TRUE(k.ok()) << k.status();
  for (int64_t n : {1, 64, 65, 4097}) {
    SCOPED_TRACE(n);
    gpu::testing::GpuKernel sized = *k;
    sized.tensor_shapes = {{n}, {n}, {n}};
    sized.scalars = {n};
    ExpectMatchesInterpreter(sized, "opencl -device=mali", static_cast<int>(n));
  }
}

// Kernels at the Mali limits exactly (256 work-items; 32 KiB of local memory) build and run.
TEST(OpenclRunLimitsTest, KernelsAtTheMaliLimitsRun) {
  absl::StatusOr<const runtime::opencl::Platform*> platform = runtime::opencl::GetPlatform();
  if (!platform.ok()) GTEST_SKIP() << platform.status().message();
  absl::StatusOr<gpu::testing::GpuKernel> wide = gpu::testing::ThreadsPerBlock(256);
  ASSERT_TRUE(wide.ok()) << wide.status();
  ExpectMatchesInterpreter(*wide, "opencl -device=mali", 3);
  absl::StatusOr<gpu::testing::GpuKernel> staged = gpu::testing::StagedTile(8192);
  ASSERT_TRUE(staged.ok()) << staged.status();
  EXPECT_EQ(staged->shared_bytes, 32 * 1024);
  ExpectMatchesInterpreter(*staged, "opencl -device=mali", 4);
}

}  // namespace
}  // namespace tessel::codegen::opencl
