#include "compiler/runtime/vdla/vdla_device_api.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "compiler/runtime/dltensor.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"

namespace tessel::runtime::vdla {
namespace {

using hardware::vdla::Device;

// Device 0, opened on first use; the mutex guards its allocator.
struct Opened {
  std::mutex mu;
  absl::StatusOr<std::unique_ptr<Device>> device = absl::UnknownError("not opened");
  bool tried = false;
};

Opened& Global() {
  static Opened* opened = new Opened;  // lives as long as the program, as device memory does
  return *opened;
}

absl::StatusOr<Device*> Open(DLDevice device) {
  if (device.device_type != kDLExtDev || device.device_id != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(DeviceName(device), ": no such VDLA device (there is ext_dev:0)"));
  }
  Opened& g = Global();
  std::lock_guard<std::mutex> lock(g.mu);
  if (!g.tried) {
    g.tried = true;
    g.device = Device::Open(hardware::vdla::DeviceOptions{});
  }
  if (!g.device.ok()) return g.device.status();
  return g.device->get();
}

class VdlaDeviceAPI : public DeviceAPI {
 public:
  absl::StatusOr<void*> Allocate(DLDevice device, size_t nbytes, size_t alignment) override {
    absl::StatusOr<Device*> d = Open(device);
    if (!d.ok()) return d.status();
    std::lock_guard<std::mutex> lock(Global().mu);
    // On a whole entry of every kind, so that any LOAD or STORE can address the tensor.
    const hardware::vdla::Config& c = (*d)->options().config;
    const size_t entry = static_cast<size_t>(
        std::max({c.input_entry_bytes(), c.weight_entry_bytes(), c.accumulator_entry_bytes(),
                  c.output_entry_bytes(), int64_t{16}}));
    absl::StatusOr<uint64_t> offset = (*d)->Allocate(nbytes, std::max(alignment, entry));
    if (!offset.ok()) {
      return absl::Status(offset.status().code(),
                          absl::StrCat(DeviceName(device), ": ", offset.status().message()));
    }
    return (*d)->data() + *offset;
  }

  void Free(DLDevice device, void* ptr) override {
    absl::StatusOr<uint64_t> offset = DramOffset(device, ptr);
    TESSEL_CHECK(offset.ok()) << offset.status();
    std::lock_guard<std::mutex> lock(Global().mu);
    const absl::Status freed = (*Global().device)->Free(*offset);
    TESSEL_CHECK(freed.ok()) << freed;
  }

  absl::Status Copy(const DLTensor& from, const DLTensor& to) override {
    const size_t bytes = NumElements(from) * DLTypeBytes(from.dtype);
    // Both sides are host-addressable: DRAM is host memory.
    std::memcpy(static_cast<char*>(to.data) + to.byte_offset,
                static_cast<const char*>(from.data) + from.byte_offset, bytes);
    return absl::OkStatus();
  }

  absl::Status Synchronize(DLDevice device) override { return Open(device).status(); }
};

}  // namespace

std::unique_ptr<DeviceAPI> MakeVdlaDeviceAPI() { return std::make_unique<VdlaDeviceAPI>(); }

absl::StatusOr<Device*> GetVdlaDevice(DLDevice device) { return Open(device); }

absl::StatusOr<uint64_t> DramOffset(DLDevice device, const void* ptr) {
  absl::StatusOr<Device*> d = Open(device);
  if (!d.ok()) return d.status();
  const uint8_t* p = static_cast<const uint8_t*>(ptr);
  const uint8_t* base = (*d)->data();
  if (p < base || p >= base + (*d)->dram_bytes()) {
    return absl::InvalidArgumentError(
        absl::StrCat(DeviceName(device), ": the pointer is not into the device's DRAM"));
  }
  return static_cast<uint64_t>(p - base);
}

}  // namespace tessel::runtime::vdla
