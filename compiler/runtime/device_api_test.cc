#include "compiler/runtime/device_api.h"

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "compiler/runtime/ndarray.h"

namespace tessel::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDevice kHost = {kDLCPU, 0};
constexpr DLDevice kExt = {kDLExtDev, 0};
constexpr DLDevice kOpenCL = {kDLOpenCL, 0};
constexpr unsigned char kPoison = 0xA5;

// A device backed by host memory that it tracks: it counts every call, allows device id 0 only,
// refuses copies that touch memory it has not allocated (or has freed), and queues copies until
// Synchronize, as a real device may, so that a caller that forgets to synchronize reads stale
// data. Freed blocks are poisoned and kept, so that the test can read them afterwards.
class FakeDevice : public DeviceAPI {
 public:
  struct Counts {
    int allocations = 0, frees = 0, copies = 0, syncs = 0;
  };

  explicit FakeDevice(DLDeviceType type) : type_(type) {}

  Counts counts() {
    std::lock_guard<std::mutex> lock(mu_);
    return counts_;
  }
  // The size of the live block at p, or -1.
  int64_t LiveBytes(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(p);
    return it == live_.end() ? -1 : static_cast<int64_t>(it->second);
  }

  absl::StatusOr<void*> Allocate(DLDevice device, size_t nbytes, size_t alignment) override {
    if (device.device_type != type_ || device.device_id != 0) {
      return absl::InvalidArgumentError(absl::StrCat("no fake device ", DeviceName(device)));
    }
    const size_t rounded = std::max<size_t>((nbytes + alignment - 1) / alignment, 1) * alignment;
    void* p = std::aligned_alloc(alignment, rounded);
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_.allocations;
    live_[p] = nbytes;
    return p;
  }

  void Free(DLDevice, void* ptr) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_.frees;
    auto it = live_.find(ptr);
    ASSERT_NE(it, live_.end()) << "free of memory the fake did not allocate";
    std::memset(ptr, kPoison, it->second);
    live_.erase(it);
    dead_.push_back(ptr);
  }

  absl::Status Copy(const DLTensor& from, const DLTensor& to) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_.copies;
    const size_t bytes = static_cast<size_t>(NumBytes(from));
    if (static_cast<int64_t>(bytes) != NumBytes(to)) {
      return absl::InternalError("copy between tensors of different sizes");
    }
    for (const DLTensor* t : {&from, &to}) {
      if (IsHost(t->device)) continue;
      if (t->device.device_type != type_) {
        return absl::InternalError(absl::StrCat("copy with a side on ", DeviceName(t->device)));
      }
      if (!Covers(*t, bytes)) return absl::InternalError("copy touches memory not allocated here");
    }
    pending_.push_back({static_cast<const char*>(from.data) + from.byte_offset,
                        static_cast<char*>(to.data) + to.byte_offset, bytes});
    return absl::OkStatus();
  }

  absl::Status Synchronize(DLDevice) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_.syncs;
    for (const Pending& p : pending_) std::memcpy(p.to, p.from, p.bytes);
    pending_.clear();
    return absl::OkStatus();
  }

 private:
  struct Pending {
    const char* from;
    char* to;
    size_t bytes;
  };

  static int64_t NumBytes(const DLTensor& t) {
    int64_t n = (t.dtype.bits + 7) / 8 * t.dtype.lanes;
    for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
    return n;
  }

  // Whether [data + byte_offset, + bytes) lies in one live block.
  bool Covers(const DLTensor& t, size_t bytes) const {
    const char* begin = static_cast<const char*>(t.data) + t.byte_offset;
    for (const auto& [block, size] : live_) {
      const char* b = static_cast<const char*>(block);
      if (begin >= b && begin + bytes <= b + size) return true;
    }
    return false;
  }

  const DLDeviceType type_;
  std::mutex mu_;
  Counts counts_;
  std::map<const void*, size_t> live_;
  std::vector<void*> dead_;  // poisoned, never released
  std::vector<Pending> pending_;
};

FakeDevice* Register(DLDeviceType type) {
  auto fake = std::make_unique<FakeDevice>(type);
  FakeDevice* raw = fake.get();
  RegisterDeviceAPI(type, std::move(fake));
  return raw;
}

// What backends do: register from a static initializer.
FakeDevice* const kFake = Register(kDLExtDev);
FakeDevice* const kOtherFake = Register(kDLOpenCL);

NDArray HostArray(std::vector<int64_t> shape, std::vector<float> values) {
  NDArray a = NDArray::Empty(std::move(shape), kF32);
  EXPECT_EQ(a.NumElements(), static_cast<int64_t>(values.size()));
  std::copy(values.begin(), values.end(), a.data<float>());
  return a;
}

std::vector<float> Contents(const NDArray& a) {
  std::vector<float> values(static_cast<size_t>(a.NumElements()));
  const absl::Status s = a.CopyToBytes(values.data(), values.size() * sizeof(float));
  EXPECT_TRUE(s.ok()) << s;
  return values;
}

// The elements of a fake device's array, read straight from the memory behind it.
std::vector<float> DeviceMemory(const NDArray& a) {
  const float* p = static_cast<const float*>(a.dl()->data);
  return std::vector<float>(p, p + a.NumElements());
}

TEST(DeviceAPITest, EmptyAllocatesOnTheDeviceAndFreesWithTheLastHandle) {
  const FakeDevice::Counts before = kFake->counts();
  const void* data = nullptr;
  {
    absl::StatusOr<NDArray> a = NDArray::Empty({2, 3}, kF32, kExt);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->device().device_type, kDLExtDev);
    EXPECT_EQ(a->device().device_id, 0);
    EXPECT_EQ(a->dl()->device.device_type, kDLExtDev);
    EXPECT_THAT(a->shape(), ElementsAre(2, 3));
    data = a->dl()->data;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % kAllocAlignment, 0u);
    EXPECT_GE(kFake->LiveBytes(data), 24);
    EXPECT_EQ(kFake->counts().allocations, before.allocations + 1);

    NDArray copy = *a;
    *a = NDArray();
    EXPECT_EQ(kFake->counts().frees, before.frees);
    EXPECT_GE(kFake->LiveBytes(data), 24);
  }
  EXPECT_EQ(kFake->counts().frees, before.frees + 1);
  EXPECT_EQ(kFake->LiveBytes(data), -1);
  EXPECT_EQ(*static_cast<const unsigned char*>(data), kPoison);
}

TEST(DeviceAPITest, HostArraysStayOnTheHost) {
  const FakeDevice::Counts before = kFake->counts();
  NDArray a = NDArray::Empty({4}, kF32);
  EXPECT_EQ(a.device().device_type, kDLCPU);
  EXPECT_EQ(a.device().device_id, 0);
  absl::StatusOr<NDArray> b = NDArray::Empty({4}, kF32, kHost);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->device().device_type, kDLCPU);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->dl()->data) % kAllocAlignment, 0u);
  EXPECT_EQ(kFake->counts().allocations, before.allocations);
}

TEST(DeviceAPITest, RoundTripThroughTheDevicePreservesValues) {
  const NDArray host = HostArray({2, 3}, {0, 1.5, -2, 3.25, 1e6, -0.5});
  const FakeDevice::Counts before = kFake->counts();
  absl::StatusOr<NDArray> device = host.CopyTo(kExt);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(device->device().device_type, kDLExtDev);
  EXPECT_THAT(device->shape(), ElementsAre(2, 3));
  EXPECT_FALSE(device->same_as(host));
  // The values are in the device's memory once CopyTo returns: it synchronized.
  EXPECT_THAT(DeviceMemory(*device), ElementsAre(0, 1.5, -2, 3.25, 1e6, -0.5));

  absl::StatusOr<NDArray> back = device->CopyTo(kHost);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->device().device_type, kDLCPU);
  EXPECT_THAT(Contents(*back), ElementsAre(0, 1.5, -2, 3.25, 1e6, -0.5));
  EXPECT_NE(back->data<void>(), host.data<void>());

  const FakeDevice::Counts after = kFake->counts();
  EXPECT_EQ(after.allocations, before.allocations + 1);
  EXPECT_EQ(after.copies, before.copies + 2);
  EXPECT_EQ(after.syncs, before.syncs + 2);
}

TEST(DeviceAPITest, CopyFromWorksAcrossDevices) {
  absl::StatusOr<NDArray> device = NDArray::Empty({3}, kF32, kExt);
  ASSERT_TRUE(device.ok()) << device.status();
  ASSERT_TRUE(device->CopyFrom(HostArray({3}, {7, 8, 9})).ok());
  EXPECT_THAT(DeviceMemory(*device), ElementsAre(7, 8, 9));

  // Device to device of one type goes through that type's API.
  absl::StatusOr<NDArray> other = NDArray::Empty({3}, kF32, kExt);
  ASSERT_TRUE(other.ok()) << other.status();
  const int copies = kFake->counts().copies;
  ASSERT_TRUE(other->CopyFrom(*device).ok());
  EXPECT_EQ(kFake->counts().copies, copies + 1);

  NDArray host = NDArray::Empty({3}, kF32);
  ASSERT_TRUE(host.CopyFrom(*other).ok());
  EXPECT_THAT(Contents(host), ElementsAre(7, 8, 9));

  // Byte copies go through the device too.
  const float bytes[] = {-1, -2, -3};
  ASSERT_TRUE(device->CopyFromBytes(bytes, sizeof(bytes)).ok());
  EXPECT_THAT(DeviceMemory(*device), ElementsAre(-1, -2, -3));
  EXPECT_THAT(Contents(*device), ElementsAre(-1, -2, -3));

  // The checks of a host copy still come first.
  absl::Status shape = device->CopyFrom(NDArray::Empty({4}, kF32));
  EXPECT_EQ(shape.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shape.message(), HasSubstr("source shape [4] differs from destination shape [3]"));
}

TEST(DeviceAPITest, CopiesThatInvolveADeviceNeedCompactTensors) {
  // A 2x2 transposed view of the host matrix [[1, 2], [3, 4]].
  std::vector<float> storage = {1, 2, 3, 4};
  std::vector<int64_t> shape = {2, 2}, strides = {1, 2};
  DLManagedTensor managed{};
  managed.dl_tensor = {storage.data(), kHost, 2, kF32, shape.data(), strides.data(), 0};
  absl::StatusOr<NDArray> strided = NDArray::FromDLPack(&managed);
  ASSERT_TRUE(strided.ok()) << strided.status();

  absl::StatusOr<NDArray> device = NDArray::Empty({2, 2}, kF32, kExt);
  ASSERT_TRUE(device.ok()) << device.status();
  absl::Status s = device->CopyFrom(*strided);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("CopyFrom: the source is strided; a copy from cpu:0 to "
                                     "ext_dev:0 needs compact tensors on both sides (strided "
                                     "copies are host-to-host only)"));
  absl::StatusOr<NDArray> copied = strided->CopyTo(kExt);
  EXPECT_THAT(copied.status().message(), HasSubstr("CopyTo: the source is strided"));

  // Host to host, strides stay fine.
  NDArray host = NDArray::Empty({2, 2}, kF32);
  ASSERT_TRUE(host.CopyFrom(*strided).ok());
  EXPECT_THAT(Contents(host), ElementsAre(1, 3, 2, 4));
}

TEST(DeviceAPITest, DevicesOfDifferentTypesCopyThroughTheHost) {
  absl::StatusOr<NDArray> ext = HostArray({2}, {1, 2}).CopyTo(kExt);
  ASSERT_TRUE(ext.ok()) << ext.status();
  absl::StatusOr<NDArray> opencl = NDArray::Empty({2}, kF32, kOpenCL);
  ASSERT_TRUE(opencl.ok()) << opencl.status();
  absl::Status s = opencl->CopyFrom(*ext);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("no direct copy from ext_dev:0 to opencl:0; copy through "
                                     "the host"));

  absl::StatusOr<NDArray> staged = ext->CopyTo(kHost);
  ASSERT_TRUE(staged.ok()) << staged.status();
  ASSERT_TRUE(opencl->CopyFrom(*staged).ok());
  EXPECT_THAT(Contents(*opencl), ElementsAre(1, 2));
  EXPECT_GE(kOtherFake->counts().copies, 2);
}

TEST(DeviceAPITest, TheDevicesAllocationErrorReachesTheCaller) {
  absl::StatusOr<NDArray> a = NDArray::Empty({2}, kF32, {kDLExtDev, 3});
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(a.status().message(), HasSubstr("no fake device ext_dev:3"));
  absl::StatusOr<NDArray> b = HostArray({1}, {1}).CopyTo({kDLExtDev, 3});
  EXPECT_THAT(b.status().message(), HasSubstr("no fake device ext_dev:3"));
}

TEST(DeviceAPITest, AnUnregisteredDeviceIsNamed) {
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI({kDLVulkan, 2});
  EXPECT_EQ(api.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(api.status().message(),
              HasSubstr("device vulkan:2: no runtime for it is linked into this build"));
  EXPECT_THAT(api.status().message(), HasSubstr("(devices with one: cpu, opencl, ext_dev)"));

  absl::StatusOr<NDArray> a = NDArray::Empty({2}, kF32, {kDLVulkan, 0});
  EXPECT_EQ(a.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(a.status().message(), HasSubstr("device vulkan:0: no runtime"));
  absl::StatusOr<NDArray> b = HostArray({1}, {1}).CopyTo({kDLCUDA, 1});
  EXPECT_THAT(b.status().message(), HasSubstr("device cuda:1: no runtime"));

  ASSERT_TRUE(GetDeviceAPI(kExt).ok());
  EXPECT_EQ(*GetDeviceAPI(kExt), static_cast<DeviceAPI*>(kFake));
}

TEST(DeviceAPITest, DeviceNamesFollowDLPack) {
  EXPECT_EQ(DeviceName({kDLCPU, 0}), "cpu:0");
  EXPECT_EQ(DeviceName({kDLCUDA, 1}), "cuda:1");
  EXPECT_EQ(DeviceName({kDLExtDev, 0}), "ext_dev:0");
  EXPECT_EQ(DeviceName({kDLCUDAManaged, 2}), "cuda_managed:2");
  // A type from a newer DLPack than this header, as a foreign tensor may carry it.
  DLDevice newer{kDLCPU, 0};
  const int type = 99;
  std::memcpy(&newer.device_type, &type, sizeof(type));
  EXPECT_EQ(DeviceName(newer), "device_type_99:0");
  EXPECT_THAT(GetDeviceAPI(newer).status().message(),
              HasSubstr("device device_type_99:0: no runtime"));
}

TEST(DeviceAPIDeathTest, ATypeRegisteredTwiceFailsACheck) {
  EXPECT_DEATH(RegisterDeviceAPI(kDLExtDev, std::make_unique<FakeDevice>(kDLExtDev)),
               "device type ext_dev has two DeviceAPIs");
  EXPECT_DEATH(RegisterDeviceAPI(kDLCPU, std::make_unique<FakeDevice>(kDLCPU)),
               "device type cpu has two DeviceAPIs");
}

TEST(DeviceAPIDeathTest, HostAccessToADeviceArrayFailsACheck) {
  absl::StatusOr<NDArray> a = NDArray::Empty({2}, kF32, kExt);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_DEATH(a->data<float>(), "host access to the elements of an array on ext_dev:0");
  EXPECT_DEATH(ElementAsDouble(*a, 0), "array on ext_dev:0");
}

TEST(DeviceAPITest, DLPackKeepsTheDevice) {
  absl::StatusOr<NDArray> a = HostArray({2}, {4, 5}).CopyTo(kExt);
  ASSERT_TRUE(a.ok()) << a.status();
  DLManagedTensor* managed = a->ToDLPack();
  EXPECT_EQ(managed->dl_tensor.device.device_type, kDLExtDev);
  EXPECT_EQ(managed->dl_tensor.data, a->dl()->data);

  // Back in without a copy: a device type with a registered API is accepted.
  absl::StatusOr<NDArray> b = NDArray::FromDLPack(managed);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->device().device_type, kDLExtDev);
  EXPECT_EQ(b->dl()->data, a->dl()->data);
  EXPECT_THAT(Contents(*b), ElementsAre(4, 5));
}

TEST(DeviceAPITest, CpuCopyHonorsByteOffset) {
  absl::StatusOr<DeviceAPI*> cpu = GetDeviceAPI(kHost);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  std::vector<float> src = {10, 11, 12, 13, 14};
  std::vector<float> dst = {0, 0, 0, 0, 0};
  int64_t shape[] = {3};
  const DLTensor from = {src.data(), kHost, 1, kF32, shape, nullptr, 2 * sizeof(float)};
  const DLTensor to = {dst.data(), kHost, 1, kF32, shape, nullptr, 1 * sizeof(float)};
  ASSERT_TRUE((*cpu)->Copy(from, to).ok());
  EXPECT_THAT(dst, ElementsAre(0, 12, 13, 14, 0));
  EXPECT_TRUE((*cpu)->Synchronize(kHost).ok());

  absl::StatusOr<void*> p = (*cpu)->Allocate(kHost, 10, 256);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % 256, 0u);
  (*cpu)->Free(kHost, *p);
}

}  // namespace
}  // namespace tessel::runtime
