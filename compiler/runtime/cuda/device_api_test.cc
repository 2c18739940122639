// The CUDA DeviceAPI: without a driver (as on the build machines) every use is one clear
// Unavailable error, never a crash; with one, arrays go to the device and back unchanged.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "compiler/runtime/cuda/driver_api.h"
#include "compiler/runtime/device_api.h"
#include "compiler/runtime/ndarray.h"

namespace tessel::runtime::cuda {
namespace {

constexpr DLDevice kCuda0{kDLCUDA, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};

bool HaveDriver() { return Driver().ok(); }

TEST(CudaDeviceApiTest, IsRegisteredForCuda) {
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kCuda0);
  ASSERT_TRUE(api.ok()) << api.status();
}

TEST(CudaDeviceApiTest, WithoutADriverEveryUseIsUnavailableWithTheReason) {
  if (HaveDriver()) GTEST_SKIP() << "this machine has a CUDA driver";
  const absl::Status driver = Driver().status();
  EXPECT_EQ(driver.code(), absl::StatusCode::kUnavailable);
  // Either no library at all, or the toolkit's stub library, which loads but has no device.
  const std::string message(driver.message());
  EXPECT_TRUE(message.find("no CUDA driver: libcuda.so.1 not found") != std::string::npos ||
              message.find("the CUDA driver is loaded but cannot be used") != std::string::npos)
      << message;

  absl::StatusOr<NDArray> a = NDArray::Empty({4}, kF32, kCuda0);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(a.status().message(), driver.message());

  NDArray host = NDArray::Empty({4}, kF32);
  absl::StatusOr<NDArray> moved = host.CopyTo(kCuda0);
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.status().code(), absl::StatusCode::kUnavailable);

  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kCuda0);
  ASSERT_TRUE(api.ok());
  EXPECT_EQ((*api)->Synchronize(kCuda0).code(), absl::StatusCode::kUnavailable);
  (*api)->Free(kCuda0, nullptr);  // nothing to free: no crash
}

TEST(CudaDeviceApiTest, AlignmentAboveTheDriversIsRefused) {
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kCuda0);
  ASSERT_TRUE(api.ok());
  absl::StatusOr<void*> p = (*api)->Allocate(kCuda0, 64, 4096);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("alignment 4096 exceeds"), std::string::npos) << p.status();
}

TEST(CudaDeviceApiTest, RoundTripThroughTheDevice) {
  if (!HaveDriver()) GTEST_SKIP() << Driver().status().message();
  NDArray host = NDArray::Empty({1000}, kF32);
  std::iota(host.data<float>(), host.data<float>() + 1000, 0.5f);
  absl::StatusOr<NDArray> dev = host.CopyTo(kCuda0);
  ASSERT_TRUE(dev.ok()) << dev.status();
  EXPECT_EQ(dev->device().device_type, kDLCUDA);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(dev->dl()->data) % kAllocAlignment, 0u);
  absl::StatusOr<NDArray> dev2 = NDArray::Empty({1000}, kF32, kCuda0);
  ASSERT_TRUE(dev2.ok()) << dev2.status();
  ASSERT_TRUE(dev2->CopyFrom(*dev).ok());  // device to device
  absl::StatusOr<NDArray> back = dev2->CopyTo({kDLCPU, 0});
  ASSERT_TRUE(back.ok()) << back.status();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(back->data<float>()[i], i + 0.5f) << i;
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kCuda0);
  EXPECT_TRUE((*api)->Synchronize(kCuda0).ok());
  // An empty array still has a pointer Free accepts.
  absl::StatusOr<NDArray> empty = NDArray::Empty({0}, kF32, kCuda0);
  EXPECT_TRUE(empty.ok()) << empty.status();
}

TEST(CudaDeviceApiTest, ADeviceThatDoesNotExistIsInvalidArgument) {
  if (!HaveDriver()) GTEST_SKIP() << Driver().status().message();
  absl::StatusOr<NDArray> a = NDArray::Empty({4}, kF32, {kDLCUDA, 999});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument) << a.status();
  EXPECT_NE(a.status().message().find("no CUDA device cuda:999"), std::string::npos) << a.status();
}

}  // namespace
}  // namespace tessel::runtime::cuda
