// Every kernel of gpu/testing/gpu_kernels.h all the way to a cubin (NVRTC, ptxas), with the
// resources ptxas reports checked for sanity, through BuildCuda and through Build's registry.
// Skipped, with the reason, where the build has no CUDA toolkit.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "compiler/codegen/build.h"
#include "compiler/codegen/cuda/build_cuda.h"
#include "compiler/codegen/cuda/ptxas.h"
#include "compiler/codegen/gpu/testing/gpu_kernels.h"

namespace tessel::codegen::cuda {
namespace {

#ifdef TESSEL_CUDA_MISSING
#define SKIP_WITHOUT_TOOLKIT() GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING
#else
#define SKIP_WITHOUT_TOOLKIT() (void)0
#endif

target::Target Cuda(const std::string& text = "cuda -arch=sm_90") {
  return *target::Target::Parse(text);
}

TEST(CudaCompileTest, ParsesPtxasReport) {
  const std::string log = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 4096 bytes smem, 380 bytes cmem[0]
ptxas info    : Compiling entry function 'other' for 'sm_90'
ptxas info    : Function properties for other
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 6 registers
)";
  auto r = ParsePtxasLog(log);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r["k"].registers, 40);
  EXPECT_EQ(r["k"].shared_bytes, 4096);
  EXPECT_EQ(r["k"].stack_bytes, 8);
  EXPECT_EQ(r["k"].spill_store_bytes, 4);
  EXPECT_EQ(r["k"].spill_load_bytes, 12);
  EXPECT_EQ(r["k"].constant_bytes, 380);
  EXPECT_EQ(r["other"].registers, 6);
  EXPECT_EQ(r["other"].shared_bytes, 0);
}

// a * b + c stays two roundings unless the target allows contraction (-fast-math-contract).
TEST(CudaCompileTest, FmaOnlyWithFastMathContract) {
  SKIP_WITHOUT_TOOLKIT();
  absl::StatusOr<gpu::testing::GpuKernel> k = gpu::testing::SharedMatmul();
  ASSERT_TRUE(k.ok()) << k.status();
  for (const bool contract : {false, true}) {
    SCOPED_TRACE(contract ? "contract" : "strict");
    std::ostringstream ptx;
    BuildOptions options;
    options.dump_asm = &ptx;
    absl::StatusOr<CudaBuild> b =
        BuildCuda({k->func}, Cuda(contract ? "cuda -arch=sm_90 -fast-math-contract" : "cuda"),
                  target::GpuFacts{}, options);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(ptx.str().find("fma.rn.f32") != std::string::npos, contract);
    EXPECT_EQ(ptx.str().find("mul.rn.f32") != std::string::npos, !contract);
  }
}

TEST(CudaCompileTest, EveryKernelAssemblesWithSaneResources) {
  SKIP_WITHOUT_TOOLKIT();
  absl::StatusOr<std::vector<gpu::testing::GpuKernel>> all = gpu::testing::AllGpuKernels();
  ASSERT_TRUE(all.ok()) << all.status();
  for (const gpu::testing::GpuKernel& k : *all) {
    SCOPED_TRACE(k.func->name);
    std::ostringstream source, ptx;
    BuildOptions options;
    options.dump_ir = &source;
    options.dump_asm = &ptx;
    absl::StatusOr<CudaBuild> b = BuildCuda({k.func}, Cuda(), target::GpuFacts{}, options);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(b->module.kind(), "cuda");
    EXPECT_NE(source.str().find("__global__"), std::string::npos);
    EXPECT_NE(ptx.str().find(".entry " + k.func->name), std::string::npos);
    EXPECT_NE(ptx.str().find(".target sm_90"), std::string::npos);
    EXPECT_EQ(b->data.cubin.substr(0, 4), "\x7f" "ELF");
    ASSERT_EQ(b->data.kernels.size(), 1u);
    const runtime::cuda::KernelResources& r = b->data.kernels[0].resources;
    std::cout << k.func->name << ": " << r.registers << " registers, " << r.shared_bytes
              << " bytes shared, " << r.stack_bytes << " bytes stack, spills " << r.spill_store_bytes
              << "/" << r.spill_load_bytes << " bytes, " << k.threads << " threads per block\n";
    EXPECT_GT(r.registers, 0);
    EXPECT_LE(r.registers * k.threads, target::GpuFacts{}.registers_per_block);
    EXPECT_EQ(r.shared_bytes, k.shared_bytes) << "ptxas's shared memory is the staged tiles'";
    EXPECT_EQ(r.spill_store_bytes, 0);
    EXPECT_EQ(r.spill_load_bytes, 0);
  }
}

TEST(CudaCompileTest, TheRegisteredBackendBuildsForTheTargetsArch) {
  SKIP_WITHOUT_TOOLKIT();
  absl::StatusOr<gpu::testing::GpuKernel> k = gpu::testing::SharedMatmul();
  ASSERT_TRUE(k.ok()) << k.status();
  std::ostringstream ptx;
  BuildOptions options;
  options.dump_asm = &ptx;
  absl::StatusOr<runtime::Module> m = Build({k->func}, Cuda("cuda -arch=sm_80"), options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->kind(), "cuda");
  EXPECT_EQ(m->FunctionNames(), std::vector<std::string>{"shared_matmul"});
  EXPECT_NE(ptx.str().find(".target sm_80"), std::string::npos);

  // Saved and loaded back, the module keeps its kernel and launch extents.
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "shared_matmul.cubin").string();
  ASSERT_TRUE(m->Save(path).ok());
  absl::StatusOr<runtime::Module> back = runtime::cuda::LoadCudaModule(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->FunctionNames(), std::vector<std::string>{"shared_matmul"});
}

TEST(CudaCompileTest, BackendIsRegisteredEvenWithoutAToolkit) {
  const std::vector<std::string> kinds = BackendKinds();
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "cuda"), kinds.end());
#ifdef TESSEL_CUDA_MISSING
  absl::StatusOr<gpu::testing::GpuKernel> k = gpu::testing::VectorAdd();
  absl::StatusOr<runtime::Module> m = Build({k->func}, Cuda());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
#endif
}

}  // namespace
}  // namespace tessel::codegen::cuda
