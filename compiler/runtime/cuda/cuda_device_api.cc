#include "compiler/runtime/cuda/cuda_device_api.h"

#include <absl/strings/str_cat.h>

#include <cstring>

#include "compiler/runtime/cuda/driver_api.h"
#include "compiler/runtime/dltensor.h"
#include "compiler/runtime/dltype.h"

namespace tessel::runtime::cuda {
namespace {

constexpr size_t kDriverAlignment = 256;

absl::StatusOr<const DriverApi*> DriverOn(DLDevice device) {
  absl::StatusOr<const DriverApi*> api = Driver();
  if (!api.ok()) return api.status();
  if (absl::Status s = UseDevice(**api, device.device_id); !s.ok()) return s;
  return api;
}

char* FirstByte(const DLTensor& t) { return static_cast<char*>(t.data) + t.byte_offset; }

class CudaDeviceAPI final : public DeviceAPI {
 public:
  absl::StatusOr<void*> Allocate(DLDevice device, size_t nbytes, size_t alignment) override {
    if (alignment > kDriverAlignment) {
      return absl::InvalidArgumentError(
          absl::StrCat(DeviceName(device), ": alignment ", alignment,
                       " exceeds the CUDA driver's allocation alignment of ", kDriverAlignment));
    }
    absl::StatusOr<const DriverApi*> api = DriverOn(device);
    if (!api.ok()) return api.status();
    CUdeviceptr ptr = 0;
    if (absl::Status s = CheckCuda(**api, (*api)->cuMemAlloc(&ptr, nbytes == 0 ? 1 : nbytes),
                                   "cuMemAlloc");
        !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(DeviceName(device), ": allocating ", nbytes,
                                                 " bytes: ", s.message()));
    }
    return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
  }

  void Free(DLDevice device, void* ptr) override {
    absl::StatusOr<const DriverApi*> api = DriverOn(device);
    // Without a driver nothing was allocated; a failed free (a sticky fault of the context) has
    // nowhere to go, and the next synchronize reports the fault.
    if (!api.ok() || ptr == nullptr) return;
    (*api)->cuMemFree(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr)));
  }

  absl::Status Copy(const DLTensor& from, const DLTensor& to) override {
    const size_t bytes = static_cast<size_t>(NumElements(from) * DLTypeBytes(from.dtype));
    const bool from_host = IsHost(from.device), to_host = IsHost(to.device);
    if (from_host && to_host) {
      if (bytes > 0) std::memmove(FirstByte(to), FirstByte(from), bytes);
      return absl::OkStatus();
    }
    if (!from_host && !to_host && from.device.device_id != to.device.device_id) {
      return absl::UnimplementedError(absl::StrCat("copy from ", DeviceName(from.device), " to ",
                                                   DeviceName(to.device),
                                                   ": copy between CUDA devices through the host"));
    }
    const DLDevice device = from_host ? to.device : from.device;
    absl::StatusOr<const DriverApi*> api = DriverOn(device);
    if (!api.ok()) return api.status();
    if (bytes == 0) return absl::OkStatus();
    auto dptr = [](const DLTensor& t) {
      return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(FirstByte(t)));
    };
    CUresult r;
    const char* what;
    if (from_host) {
      r = (*api)->cuMemcpyHtoD(dptr(to), FirstByte(from), bytes);
      what = "cuMemcpyHtoD";
    } else if (to_host) {
      r = (*api)->cuMemcpyDtoH(FirstByte(to), dptr(from), bytes);
      what = "cuMemcpyDtoH";
    } else {
      r = (*api)->cuMemcpyDtoD(dptr(to), dptr(from), bytes);
      what = "cuMemcpyDtoD";
    }
    absl::Status s = CheckCuda(**api, r, what);
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat("copy from ", DeviceName(from.device), " to ",
                                               DeviceName(to.device), " (", bytes,
                                               " bytes): ", s.message()));
  }

  absl::Status Synchronize(DLDevice device) override {
    absl::StatusOr<const DriverApi*> api = DriverOn(device);
    if (!api.ok()) return api.status();
    absl::Status s = CheckCuda(**api, (*api)->cuCtxSynchronize(), "cuCtxSynchronize");
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat(DeviceName(device), ": ", s.message()));
  }
};

}  // namespace

std::unique_ptr<DeviceAPI> MakeCudaDeviceAPI() { return std::make_unique<CudaDeviceAPI>(); }

}  // namespace tessel::runtime::cuda
