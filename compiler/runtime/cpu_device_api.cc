#include "compiler/runtime/cpu_device_api.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "compiler/runtime/dltensor.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"

namespace tessel::runtime {
namespace {

class CpuDeviceAPI : public DeviceAPI {
 public:
  absl::StatusOr<void*> Allocate(DLDevice device, size_t nbytes, size_t alignment) override {
    TESSEL_CHECK(IsHost(device)) << DeviceName(device);
    TESSEL_CHECK(alignment != 0 && (alignment & (alignment - 1)) == 0)
        << "alignment " << alignment << " is not a power of two";
    alignment = std::max(alignment, alignof(std::max_align_t));
    // aligned_alloc wants a whole number of alignment units; at least one, so that the pointer
    // is never null.
    const size_t units = std::max<size_t>((nbytes + alignment - 1) / alignment, 1);
    void* ptr = std::aligned_alloc(alignment, units * alignment);
    if (ptr == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate ", nbytes, " bytes on ", DeviceName(device)));
    }
    return ptr;
  }

  void Free(DLDevice, void* ptr) override { std::free(ptr); }

  absl::Status Copy(const DLTensor& from, const DLTensor& to) override {
    TESSEL_CHECK(IsHost(from.device) && IsHost(to.device))
        << DeviceName(from.device) << " -> " << DeviceName(to.device);
    TESSEL_CHECK(IsCompact(from) && IsCompact(to));
    const int64_t bytes = NumElements(from) * DLTypeBytes(from.dtype);
    TESSEL_CHECK(bytes == NumElements(to) * DLTypeBytes(to.dtype))
        << bytes << " bytes into " << NumElements(to) * DLTypeBytes(to.dtype);
    if (bytes == 0) return absl::OkStatus();
    std::memcpy(static_cast<char*>(to.data) + to.byte_offset,
                static_cast<const char*>(from.data) + from.byte_offset, static_cast<size_t>(bytes));
    return absl::OkStatus();
  }

  absl::Status Synchronize(DLDevice) override { return absl::OkStatus(); }
};

}  // namespace

std::unique_ptr<DeviceAPI> MakeCpuDeviceAPI() { return std::make_unique<CpuDeviceAPI>(); }

}  // namespace tessel::runtime
