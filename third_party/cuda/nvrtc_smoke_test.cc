// NVRTC: a small CUDA kernel compiles to PTX for sm_90, and a kernel with a type error is refused
// with a log naming it. Nothing runs here: this machine may have no GPU. Without a CUDA toolkit
// the tests report themselves skipped, with the reason.
#include <gtest/gtest.h>

#include <string>

#ifndef TESSEL_CUDA_MISSING
#include <nvrtc.h>
#endif

namespace {

constexpr char kSaxpy[] = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

constexpr char kBroken[] = R"(
extern "C" __global__ void broken(float* y) { y[0] = undeclared_name; }
)";

#ifndef TESSEL_CUDA_MISSING
struct Compiled {
  nvrtcResult result;
  std::string ptx;
  std::string log;
};

Compiled CompileForSm90(const char* source, const char* name) {
  nvrtcProgram program = nullptr;
  EXPECT_EQ(nvrtcCreateProgram(&program, source, name, 0, nullptr, nullptr), NVRTC_SUCCESS);
  const char* options[] = {"--gpu-architecture=compute_90", "--std=c++17"};
  Compiled out;
  out.result = nvrtcCompileProgram(program, 2, options);
  size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  out.log.resize(size);
  nvrtcGetProgramLog(program, out.log.data());
  if (out.result == NVRTC_SUCCESS) {
    nvrtcGetPTXSize(program, &size);
    out.ptx.resize(size);
    nvrtcGetPTX(program, out.ptx.data());
  }
  nvrtcDestroyProgram(&program);
  return out;
}
#endif

TEST(NvrtcSmokeTest, CompilesKernelToPtxForSm90) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "CUDA toolkit not found: " << TESSEL_CUDA_MISSING;
#else
  int major = 0, minor = 0;
  ASSERT_EQ(nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
  EXPECT_GE(major, 12);
  Compiled c = CompileForSm90(kSaxpy, "saxpy.cu");
  ASSERT_EQ(c.result, NVRTC_SUCCESS) << c.log;
  EXPECT_NE(c.ptx.find(".target sm_90"), std::string::npos) << c.ptx.substr(0, 400);
  EXPECT_NE(c.ptx.find(".entry saxpy"), std::string::npos);
  EXPECT_NE(c.ptx.find("fma.rn.f32"), std::string::npos) << "a * x + y should contract to an FMA";
#endif
}

TEST(NvrtcSmokeTest, RefusesBrokenKernelWithLog) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "CUDA toolkit not found: " << TESSEL_CUDA_MISSING;
#else
  Compiled c = CompileForSm90(kBroken, "broken.cu");
  EXPECT_EQ(c.result, NVRTC_ERROR_COMPILATION);
  EXPECT_NE(c.log.find("undeclared_name"), std::string::npos) << c.log;
#endif
}

}  // namespace
