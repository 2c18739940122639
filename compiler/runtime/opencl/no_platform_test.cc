// Without an OpenCL platform (this test's environment points the ICD loader at an empty vendor
// folder): every use that needs a device is one clear Unavailable error naming the reason, never
// a crash; modules are still made, saved and loaded.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/runtime/ndarray.h"
#include "compiler/runtime/opencl/opencl_api.h"
#include "compiler/runtime/opencl/opencl_module.h"
#include "compiler/runtime/opencl/program.h"
#include "compiler/runtime/opencl/testing_module.h"

namespace tessel::runtime::opencl {
namespace {

constexpr DLDevice kCl0{kDLOpenCL, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};

TEST(OpenclNoPlatformTest, EveryUseIsUnavailableWithTheReason) {
  absl::StatusOr<const Platform*> platform = GetPlatform();
  if (platform.ok()) GTEST_SKIP() << "the ICD loader found a platform despite OCL_ICD_VENDORS";
  EXPECT_EQ(platform.status().code(), absl::StatusCode::kUnavailable);
  const std::string reason(platform.status().message());
  EXPECT_NE(reason.find("no OpenCL platform: clGetPlatformIDs: "), std::string::npos) << reason;
  EXPECT_NE(reason.find("pocl-opencl-icd"), std::string::npos) << reason;

  absl::StatusOr<NDArray> a = NDArray::Empty({4}, kF32, kCl0);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(a.status().message(), reason);
  EXPECT_EQ(CheckProgramBuilds(testing::kScaleSource).code(), absl::StatusCode::kUnavailable);

  Module m = MakeOpenclModule(testing::ScaleModule());
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "scale.cl").string();
  ASSERT_TRUE(m.Save(path).ok());
  absl::StatusOr<Module> back = LoadOpenclModule(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->FunctionNames(), std::vector<std::string>{"scale"});
}

}  // namespace
}  // namespace tessel::runtime::opencl
