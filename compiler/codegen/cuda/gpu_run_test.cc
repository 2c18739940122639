// The kernels of gpu/testing/gpu_kernels.h run on a GPU through the CUDA runtime, on random inputs,
// against the reference interpreter on the same inputs. Built for the GPU's own compute
// capability. Skipped, with the driver's reason, where there is no driver or GPU.
//
// Tolerance: |gpu - interp| <= 1e-4 + 1e-4 * |interp| per element. The GPU sums in the same
// order as the interpreter (the schedule fixes it) and nothing is contracted into FMAs
// (--fmad=false), so element-wise kernels match exactly; expf differs from the host's exp by up
// to 2 ulp (CUDA's documented bound), which a sum of 256 terms keeps far below the tolerance.
#include <gtest/gtest.h>


#include "compiler/codegen/cuda/build_cuda.h"
#include "compiler/codegen/gpu/testing/gpu_kernels.h"
#include "compiler/codegen/gpu/testing/run_check.h"
#include "compiler/runtime/cuda/cuda_module.h"
#include "compiler/runtime/cuda/driver_api.h"
#include "compiler/runtime/ndarray.h"

namespace tessel::codegen::cuda {
namespace {

constexpr DLDevice kGpu{kDLCUDA, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr double kTolerance = 1e-4;

struct Gpu {
  std::string arch;  // "sm_90"
  target::GpuFacts limits;  // the device's own
};

// The GPU this test runs on, or why there is none.
absl::StatusOr<Gpu> TheGpu() {
  absl::StatusOr<const runtime::cuda::DriverApi*> api = runtime::cuda::Driver();
  if (!api.ok()) return api.status();
  int count = 0;
  if ((*api)->cuDeviceGetCount(&count) != runtime::cuda::kCudaSuccess || count == 0) {
    return absl::UnavailableError("the CUDA driver finds no GPU");
  }
  runtime::cuda::CUdevice device = 0;
  int major = 0, minor = 0;
  (*api)->cuDeviceGet(&device, 0);
  (*api)->cuDeviceGetAttribute(&major, runtime::cuda::kDeviceAttributeComputeCapabilityMajor,
                               device);
  (*api)->cuDeviceGetAttribute(&minor, runtime::cuda::kDeviceAttributeComputeCapabilityMinor,
                               device);
  // cuda.h's CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, _MAX_SHARED_MEMORY_PER_BLOCK,
  // _MAX_REGISTERS_PER_BLOCK; 255 registers per thread on every GPU since sm_35.
  int threads = 0, shared = 0, registers = 0;
  (*api)->cuDeviceGetAttribute(&threads, 1, device);
  (*api)->cuDeviceGetAttribute(&shared, 8, device);
  (*api)->cuDeviceGetAttribute(&registers, 12, device);
  target::GpuFacts limits;
  limits.max_threads_per_block = threads;
  limits.shared_memory_per_block = shared;
  limits.registers_per_block = registers;
  return Gpu{absl::StrCat("sm_", major, minor), limits};
}

class GpuRunTest : public ::testing::TestWithParam<int> {};

TEST_P(GpuRunTest, MatchesTheInterpreter) {
  absl::StatusOr<Gpu> gpu = TheGpu();
  if (!gpu.ok()) GTEST_SKIP() << gpu.status().message();
  absl::StatusOr<std::vector<gpu::testing::GpuKernel>> all = gpu::testing::AllGpuKernels();
  ASSERT_TRUE(all.ok()) << all.status();
  const gpu::testing::GpuKernel& k = (*all)[GetParam()];
  SCOPED_TRACE(k.func->name);
  absl::StatusOr<CudaBuild> built =
      BuildCuda({k.func}, *target::Target::Parse("cuda -arch=" + gpu->arch), gpu->limits);
  ASSERT_TRUE(built.ok()) << built.status();

  gpu::testing::ExpectMatchesInterpreter(k, built->module, kGpu, 17 + GetParam(), kTolerance,
                                         "gpu", built->data.source);
}

std::string KernelName(const ::testing::TestParamInfo<int>& info) {
  static const char* kNames[] = {"VectorAdd",   "SharedMatmul",  "RowSumExp",
                                 "Float4Scale", "VthreadAffine", "IndexReuse"};
  return kNames[info.param];
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuRunTest, ::testing::Range(0, 6), KernelName);

// A host tensor handed to a kernel is refused, naming the argument (with a GPU, so that it is the
// argument check that answers, not the missing driver).
TEST(GpuRunErrorTest, HostTensorIsRefused) {
  absl::StatusOr<Gpu> gpu = TheGpu();
  if (!gpu.ok()) GTEST_SKIP() << gpu.status().message();
  absl::StatusOr<gpu::testing::GpuKernel> k = gpu::testing::Float4Scale();
  ASSERT_TRUE(k.ok());
  absl::StatusOr<CudaBuild> built =
      BuildCuda({k->func}, *target::Target::Parse("cuda -arch=" + gpu->arch), gpu->limits);
  ASSERT_TRUE(built.ok()) << built.status();
  runtime::NDArray a = runtime::NDArray::Empty({4096}, kF32);
  absl::StatusOr<runtime::NDArray> b = runtime::NDArray::Empty({4096}, kF32, kGpu);
  ASSERT_TRUE(b.ok());
  absl::StatusOr<runtime::Function> f = built->module.GetFunction("float4_scale");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::Status s = (*f)({a.dl(), b->dl()});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("argument 0 (parameter 'A'): the tensor is on cpu:0"),
            std::string::npos)
      << s;
  // A tensor that claims to be on the GPU but holds host memory: the launch asks the driver and
  // refuses the pointer.
  DLTensor lying = *a.dl();
  lying.device = kGpu;
  absl::Status direct = (*f)({&lying, b->dl()});
  ASSERT_FALSE(direct.ok());
  EXPECT_NE(direct.message().find("the tensor's data is not CUDA device memory"),
            std::string::npos)
      << direct;
}

}  // namespace
}  // namespace tessel::codegen::cuda
