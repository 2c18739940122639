// CUDA modules without a GPU: saved files read back, host tensors refused naming the argument,
// and a launch without a driver is an error with the driver's reason, never a crash.
#include "compiler/runtime/cuda/cuda_module.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "compiler/runtime/cuda/driver_api.h"
#include "compiler/runtime/ndarray.h"

namespace tessel::runtime::cuda {
namespace {

// A module of one kernel `scale(X: float32[n], n: int32)`, its grid ceil(n / 128).
CudaModuleData FakeModule() {
  CudaModuleData data;
  data.arch = "sm_90";
  data.cubin = std::string("not really a cubin\0with a zero byte", 35);
  CudaKernel k;
  k.signature.name = "scale";
  ParamSpec x;
  x.name = "X";
  x.dtype = {kDLFloat, 32, 1};
  x.shape = {DimSpec{0, 1}};
  x.alignment = 64;
  x.written = true;
  ParamSpec n;
  n.name = "n";
  n.kind = ParamSpec::Kind::kInt;
  n.dtype = {kDLInt, 32, 1};
  k.signature.params = {x, n};
  k.launch.grid[0] = *LaunchExpr::Parse("$1 127 + 128 /");
  k.launch.block[0] = LaunchExpr::Constant(128);
  k.resources.registers = 12;
  k.resources.shared_bytes = 512;
  data.kernels.push_back(k);
  return data;
}

TEST(CudaModuleTest, SaveAndLoadKeepKernelsAndLaunchExtents) {
  const std::string path = (std::filesystem::path(testing::TempDir()) / "scale.cubin").string();
  Module m = MakeCudaModule(FakeModule());
  EXPECT_EQ(m.kind(), "cuda");
  EXPECT_EQ(m.FunctionNames(), std::vector<std::string>{"scale"});
  ASSERT_TRUE(m.Save(path).ok());
  absl::StatusOr<Module> back = LoadCudaModule(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->FunctionNames(), std::vector<std::string>{"scale"});
  absl::StatusOr<runtime::Function> f = back->GetFunction("scale");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->signature().params.size(), 2u);
  EXPECT_EQ(f->signature().params[0].name, "X");

  std::remove((path + ".json").c_str());
  absl::StatusOr<Module> missing = LoadCudaModule(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("scale.cubin.json"), std::string::npos);
}

TEST(CudaModuleTest, HostTensorIsRefusedNamingTheArgument) {
  Module m = MakeCudaModule(FakeModule());
  absl::StatusOr<runtime::Function> f = m.GetFunction("scale");
  ASSERT_TRUE(f.ok()) << f.status();
  NDArray x = NDArray::Empty({256}, {kDLFloat, 32, 1});
  absl::Status s = (*f)({x.dl(), int64_t{256}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("function 'scale' argument 0 (parameter 'X'): the tensor is on "
                             "cpu:0; this function takes tensors on cuda"),
            std::string::npos)
      << s;
}

TEST(CudaModuleTest, LaunchWithoutADriverReportsIt) {
  if (Driver().ok()) GTEST_SKIP() << "this machine has a CUDA driver";
  Module m = MakeCudaModule(FakeModule());
  absl::StatusOr<runtime::Function> f = m.GetFunction("scale");
  ASSERT_TRUE(f.ok()) << f.status();
  // A tensor that says it is on cuda:0 passes the argument checks; the launch then answers with
  // the driver's reason without touching the pointer.
  NDArray x = NDArray::Empty({256}, {kDLFloat, 32, 1});
  DLTensor on_gpu = *x.dl();
  on_gpu.device = {kDLCUDA, 0};
  absl::Status s = (*f)({&on_gpu, int64_t{256}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("function 'scale' failed: "), std::string::npos) << s;
  EXPECT_NE(s.message().find(Driver().status().message()), std::string::npos) << s;
}

}  // namespace
}  // namespace tessel::runtime::cuda
