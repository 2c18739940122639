// Tensors on the VDLA device: allocated in its DRAM, copied there and back, addressed by DRAM
// offset; other device ids and allocations past the DRAM are errors naming the device.
#include "compiler/runtime/vdla/vdla_device_api.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "compiler/runtime/ndarray.h"

namespace tessel::runtime::vdla {
namespace {

constexpr DLDevice kVdla{kDLExtDev, 0};
constexpr DLDataType kInt8{kDLInt, 8, 1};

TEST(VdlaDeviceApiTest, TensorsLiveInTheDevicesDram) {
  absl::StatusOr<NDArray> a = NDArray::Empty({4, 16}, kInt8, kVdla);
  ASSERT_TRUE(a.ok()) << a.status();
  std::vector<int8_t> host(64);
  std::iota(host.begin(), host.end(), -32);
  ASSERT_TRUE(a->CopyFromBytes(host.data(), host.size()).ok());
  std::vector<int8_t> back(64, 0);
  ASSERT_TRUE(a->CopyToBytes(back.data(), back.size()).ok());
  EXPECT_EQ(back, host);

  // The bytes are in the driver's DRAM at the tensor's offset, where instructions address them.
  absl::StatusOr<hardware::vdla::Device*> device = GetVdlaDevice(kVdla);
  ASSERT_TRUE(device.ok());
  absl::StatusOr<uint64_t> offset = DramOffset(kVdla, a->dl()->data);
  ASSERT_TRUE(offset.ok()) << offset.status();
  EXPECT_EQ(*offset % 16, 0u);
  EXPECT_EQ(static_cast<int8_t>((*device)->data()[*offset + 5]), host[5]);
  const uint64_t before = (*device)->allocated_bytes();
  EXPECT_GE(before, 64u);
  *a = NDArray();  // freed with the last handle
  EXPECT_EQ((*device)->allocated_bytes(), before - 64);
}

TEST(VdlaDeviceApiTest, OtherDevicesAndOversizedTensorsAreErrors) {
  absl::StatusOr<NDArray> other = NDArray::Empty({4}, kInt8, DLDevice{kDLExtDev, 1});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("ext_dev:1: no such VDLA device"), std::string::npos)
      << other.status();
  absl::StatusOr<NDArray> big = NDArray::Empty({int64_t{1} << 27}, kInt8, kVdla);
  ASSERT_FALSE(big.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(big.status())) << big.status();
  EXPECT_NE(big.status().message().find("ext_dev:0: VDLA DRAM: no 134217728 bytes free"),
            std::string::npos)
      << big.status();
  int on_host = 0;
  EXPECT_FALSE(DramOffset(kVdla, &on_host).ok());
}

}  // namespace
}  // namespace tessel::runtime::vdla
