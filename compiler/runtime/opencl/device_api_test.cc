// The OpenCL DeviceAPI on the platform here (PoCL): arrays go to the device and back unchanged,
// at offsets into buffers too; device-to-device copies; the address convention (buffer_table.h);
// errors carry OpenCL's error name or say what is wrong. Skipped, with the reason, where there is
// no OpenCL platform (no_platform_test checks that case).
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "compiler/runtime/device_api.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/runtime/opencl/buffer_table.h"
#include "compiler/runtime/opencl/opencl_api.h"

namespace tessel::runtime::opencl {
namespace {

constexpr DLDevice kCl0{kDLOpenCL, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};

#define SKIP_WITHOUT_PLATFORM()                                          \
  do {                                                                   \
    absl::StatusOr<const Platform*> p = GetPlatform();                   \
    if (!p.ok()) GTEST_SKIP() << p.status().message();                   \
  } while (0)

TEST(OpenclDeviceApiTest, IsRegisteredForOpencl) {
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kCl0);
  ASSERT_TRUE(api.ok()) << api.status();
}

TEST(OpenclDeviceApiTest, RoundTripsThroughTheDevice) {
  SKIP_WITHOUT_PLATFORM();
  NDArray host = NDArray::Empty({1000}, kF32);
  std::iota(host.data<float>(), host.data<float>() + 1000, -3.5f);
  absl::StatusOr<NDArray> device = host.CopyTo(kCl0);
  ASSERT_TRUE(device.ok()) << device.status();
  // The data is an address of the convention, never a host pointer.
  const uintptr_t address = reinterpret_cast<uintptr_t>(device->dl()->data);
  EXPECT_GE(address, uintptr_t{1} << 62);
  std::optional<BufferRef> ref = BufferTable::Find(address);
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->offset, 0u);
  EXPECT_GE(ref->size, 4000u);
  // Device to device, then back.
  absl::StatusOr<NDArray> second = device->CopyTo(kCl0);
  ASSERT_TRUE(second.ok()) << second.status();
  absl::StatusOr<NDArray> back = second->CopyTo({kDLCPU, 0});
  ASSERT_TRUE(back.ok()) << back.status();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(back->data<float>()[i], host.data<float>()[i]) << i;
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kCl0);
  ASSERT_TRUE(api.ok());
  EXPECT_TRUE((*api)->Synchronize(kCl0).ok());
}

// A tensor at a byte offset into a device buffer copies from and to that place.
TEST(OpenclDeviceApiTest, CopiesAtAnOffset) {
  SKIP_WITHOUT_PLATFORM();
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kCl0);
  ASSERT_TRUE(api.ok());
  absl::StatusOr<void*> buffer = (*api)->Allocate(kCl0, 64 * sizeof(float), 64);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  NDArray host = NDArray::Empty({16}, kF32);
  std::iota(host.data<float>(), host.data<float>() + 16, 1.0f);
  int64_t shape[] = {16};
  DLTensor slice{*buffer, kCl0, 1, kF32, shape, nullptr, 32 * sizeof(float)};
  ASSERT_TRUE((*api)->Copy(*host.dl(), slice).ok());
  NDArray out = NDArray::Empty({16}, kF32);
  ASSERT_TRUE((*api)->Copy(slice, *out.dl()).ok());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out.data<float>()[i], i + 1.0f);
  // Past the end of the buffer: refused, naming the sizes.
  DLTensor past{*buffer, kCl0, 1, kF32, shape, nullptr, 56 * sizeof(float)};
  absl::Status s = (*api)->Copy(*host.dl(), past);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("64 bytes at offset 224 run past the buffer's 256"),
            std::string::npos)
      << s;
  (*api)->Free(kCl0, *buffer);
  EXPECT_FALSE(BufferTable::Find(reinterpret_cast<uintptr_t>(*buffer)).has_value());
}

TEST(OpenclDeviceApiTest, ErrorsSayWhatIsWrong) {
  SKIP_WITHOUT_PLATFORM();
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kCl0);
  ASSERT_TRUE(api.ok());
  absl::StatusOr<NDArray> missing = NDArray::Empty({4}, kF32, {kDLOpenCL, 99});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("opencl:99 does not exist"), std::string::npos)
      << missing.status();
  // A host pointer that claims to be on the device is refused, not dereferenced.
  NDArray host = NDArray::Empty({4}, kF32);
  DLTensor lying = *host.dl();
  lying.device = kCl0;
  absl::Status s = (*api)->Copy(lying, *host.dl());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not an OpenCL buffer of this runtime"), std::string::npos) << s;
  // OpenCL's own errors carry their names.
  EXPECT_EQ(ErrorName(CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE");
  absl::Status oom = CheckCl(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer");
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(oom.message(), "clCreateBuffer: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)");
}

}  // namespace
}  // namespace tessel::runtime::opencl
