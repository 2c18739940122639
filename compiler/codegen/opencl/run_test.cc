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

#include <cmath>
#include <random>
#include <sstream>

#include "compiler/codegen/build.h"
#include "compiler/codegen/gpu/testing/gpu_kernels.h"
#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/opencl/build_opencl.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/runtime/opencl/opencl_api.h"

namespace tessel::codegen::opencl {
namespace {

constexpr DLDevice kCl0{kDLOpenCL, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};
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

  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const size_t tensors = k.tensor_shapes.size();
  std::vector<runtime::NDArray> reference, device;
  std::vector<interp::Arg> interp_args;
  std::vector<runtime::Arg> cl_args;
  for (size_t t = 0; t < tensors; ++t) {
    runtime::NDArray h = runtime::NDArray::Empty(k.tensor_shapes[t], kF32);
    for (int64_t e = 0; e < h.NumElements(); ++e) {
      h.data<float>()[e] = t + 1 == tensors ? std::nanf("") : dist(rng);
    }
    absl::StatusOr<runtime::NDArray> d = h.CopyTo(kCl0);
    ASSERT_TRUE(d.ok()) << d.status();
    reference.push_back(h);
    device.push_back(*d);
  }
  for (size_t t = 0; t < tensors; ++t) {
    interp_args.push_back(reference[t].dl());
    cl_args.push_back(device[t].dl());
  }
  for (int64_t v : k.scalars) {
    interp_args.push_back(v);
    cl_args.push_back(v);
  }
  ASSERT_TRUE(interp::Run(k.func, interp_args).ok());
  absl::StatusOr<runtime::Function> kernel = built->GetFunction(k.func->name);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  absl::Status call = (*kernel)(cl_args);
  ASSERT_TRUE(call.ok()) << call;
  absl::StatusOr<runtime::NDArray> out = device.back().CopyTo({kDLCPU, 0});
  ASSERT_TRUE(out.ok()) << out.status();
  const runtime::NDArray& want = reference.back();
  int64_t bad = 0;
  for (int64_t e = 0; e < want.NumElements(); ++e) {
    const double w = want.data<float>()[e], g = out->data<float>()[e];
    if (!(std::fabs(g - w) <= kTolerance + kTolerance * std::fabs(w))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "element " << runtime::IndexText(want.shape(), e) << ": opencl " << g
                      << ", interpreter " << w;
      }
    }
  }
  EXPECT_EQ(bad, 0) << "of " << want.NumElements() << " elements\n" << source.str();
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
  static const char* kNames[] = {"VectorAdd", "SharedMatmul", "RowSumExp", "Float4Scale",
                                 "VthreadAffine"};
  return kNames[info.param];
}

INSTANTIATE_TEST_SUITE_P(Kernels, OpenclRunTest, ::testing::Range(0, 5), KernelName);

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
