// OpenCL modules on the platform here (PoCL): a kernel runs with its launch extents evaluated
// from the arguments, before and after a save and load; a source that does not build is an error
// carrying the build log; tensors that are not whole buffers of this runtime are refused, naming
// the argument. Skipped, with the reason, where there is no OpenCL platform.
#include "compiler/runtime/opencl/opencl_module.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "compiler/runtime/device_api.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/runtime/opencl/opencl_api.h"
#include "compiler/runtime/opencl/program.h"
#include "compiler/runtime/opencl/testing_module.h"

namespace tessel::runtime::opencl {
namespace {

constexpr DLDevice kCl0{kDLOpenCL, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};

#define SKIP_WITHOUT_PLATFORM()                        \
  do {                                                 \
    absl::StatusOr<const Platform*> p = GetPlatform(); \
    if (!p.ok()) GTEST_SKIP() << p.status().message(); \
  } while (0)

// Runs scale on n elements 0, 1, 2, ... and checks they doubled.
void ExpectScales(const Module& m, int n) {
  NDArray host = NDArray::Empty({n}, kF32);
  for (int i = 0; i < n; ++i) host.data<float>()[i] = static_cast<float>(i);
  absl::StatusOr<NDArray> x = host.CopyTo(kCl0);
  ASSERT_TRUE(x.ok()) << x.status();
  absl::StatusOr<Function> f = m.GetFunction("scale");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::Status call = (*f)({x->dl(), int64_t{n}});
  ASSERT_TRUE(call.ok()) << call;
  absl::StatusOr<NDArray> back = x->CopyTo({kDLCPU, 0});
  ASSERT_TRUE(back.ok()) << back.status();
  for (int i = 0; i < n; ++i) ASSERT_EQ(back->data<float>()[i], 2.0f * i) << i;
}

TEST(OpenclModuleTest, RunsAndSurvivesSaveAndLoad) {
  SKIP_WITHOUT_PLATFORM();
  Module m = MakeOpenclModule(testing::ScaleModule());
  EXPECT_EQ(m.kind(), "opencl");
  ExpectScales(m, 1000);  // 8 work-groups, the last one partly guarded
  ExpectScales(m, 5);
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "scale.cl").string();
  ASSERT_TRUE(m.Save(path).ok());
  absl::StatusOr<Module> back = LoadOpenclModule(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->FunctionNames(), std::vector<std::string>{"scale"});
  ExpectScales(*back, 300);
  std::remove((path + ".json").c_str());
  absl::StatusOr<Module> missing = LoadOpenclModule(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("scale.cl.json"), std::string::npos);
}

TEST(OpenclModuleTest, ASourceThatDoesNotBuildCarriesTheBuildLog) {
  SKIP_WITHOUT_PLATFORM();
  const std::string broken =
      "__kernel void scale(__global float* restrict X, int n) { X[0] = undefined_name; }\n";
  absl::Status direct = CheckProgramBuilds(broken);
  ASSERT_FALSE(direct.ok());
  EXPECT_EQ(direct.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(direct.message().find("clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)"),
            std::string::npos)
      << direct;
  EXPECT_NE(direct.message().find("undefined_name"), std::string::npos)
      << "the compiler's log names the culprit\n" << direct;
  // Through a module: at the first launch.
  Module m = MakeOpenclModule(testing::ScaleModule(broken));
  absl::StatusOr<NDArray> x = NDArray::Empty({4}, kF32, kCl0);
  ASSERT_TRUE(x.ok()) << x.status();
  absl::Status call = (*m.GetFunction("scale"))({x->dl(), int64_t{4}});
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.message().find("build log:"), std::string::npos) << call;
  EXPECT_NE(call.message().find("undefined_name"), std::string::npos) << call;
}

TEST(OpenclModuleTest, TensorsMustBeWholeBuffersOfThisRuntime) {
  SKIP_WITHOUT_PLATFORM();
  Module m = MakeOpenclModule(testing::ScaleModule());
  absl::StatusOr<Function> f = m.GetFunction("scale");
  ASSERT_TRUE(f.ok());
  // A host tensor: refused by the argument check.
  NDArray host = NDArray::Empty({8}, kF32);
  absl::Status s = (*f)({host.dl(), int64_t{8}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("argument 0 (parameter 'X'): the tensor is on cpu:0"),
            std::string::npos)
      << s;
  // Host memory claiming to be on the device.
  DLTensor lying = *host.dl();
  lying.device = kCl0;
  s = (*f)({&lying, int64_t{8}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the tensor's data is not an OpenCL buffer of this runtime"),
            std::string::npos)
      << s;
  // A tensor that starts inside a buffer.
  absl::StatusOr<NDArray> big = NDArray::Empty({64}, kF32, kCl0);
  ASSERT_TRUE(big.ok());
  DLTensor inside = *big->dl();
  int64_t shape[] = {8};
  inside.shape = shape;
  inside.byte_offset = 128;
  s = (*f)({&inside, int64_t{8}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("starts 128 bytes into its OpenCL buffer"), std::string::npos) << s;
}

}  // namespace
}  // namespace tessel::runtime::opencl
