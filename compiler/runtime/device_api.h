#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstddef>
#include <memory>
#include <string>

#include "compiler/runtime/device_name.h"

// The seam between the runtime and a kind of device: one DeviceAPI per DLDeviceType allocates
// memory on devices of that type, copies tensors to, from and on them, and waits for their
// queued work. NDArray (ndarray.h) goes through it for every allocation and every copy that
// involves a device.
//
// The host's API (kDLCPU) is always there: it is part of the ndarray library and the registry
// holds it from the start, so host arrays work even from static initializers. Every other backend
// registers its API from a static initializer in its own library, linked with alwayslink = 1:
//
//   [[maybe_unused]] const bool kRegistered =
//       (RegisterDeviceAPI(kDLCUDA, std::make_unique<CudaDeviceAPI>()), true);
//
// Thread safety: registration and lookup may happen from any thread. An API's methods may be
// called concurrently; each implementation synchronises what it shares.
namespace tessel::runtime {

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;

  // `nbytes` bytes on `device` (of this API's type), the address a multiple of `alignment` (a
  // power of two). nbytes may be 0; the pointer is then still one that Free accepts. Errors:
  // ResourceExhausted when the device is out of memory, InvalidArgument for a device id that does
  // not exist; both name the device.
  virtual absl::StatusOr<void*> Allocate(DLDevice device, size_t nbytes, size_t alignment) = 0;

  // Releases what Allocate returned for the same device. Work queued on the device that uses the
  // memory must be finished or ordered before the release (the implementation's concern).
  virtual void Free(DLDevice device, void* ptr) = 0;

  // Copies the bytes of `from`'s elements to `to`'s. Preconditions (the caller's, not checked
  // here beyond what is cheap): both compact (dltensor.h's IsCompact), the same number of element
  // bytes (NumElements * DLTypeBytes(dtype)), neither overlapping the other, and each on the
  // host (kDLCPU) or on a device of this API's type. The copy starts at data + byte_offset on
  // either side.
  //
  // The copy may only be queued when this returns, ordered after the work queued before it on
  // the device: host memory on either side must stay valid and untouched until Synchronize of the
  // device returns. A host-to-host copy is complete when this returns.
  virtual absl::Status Copy(const DLTensor& from, const DLTensor& to) = 0;

  // Waits until every copy and kernel queued on `device` has finished; an error reports a
  // failure of that work.
  virtual absl::Status Synchronize(DLDevice device) = 0;
};

// Registers the API of every device of `type`. A type registered twice is an internal error (a
// failed check): each device type has one runtime in a build.
void RegisterDeviceAPI(DLDeviceType type, std::unique_ptr<DeviceAPI> api);

// The API of `device`'s type; it lives as long as the program. Unimplemented when no runtime for
// that type is linked into this build; the message names the device and the types there are.
absl::StatusOr<DeviceAPI*> GetDeviceAPI(DLDevice device);


// Whether the host can read and write the device's memory directly (only kDLCPU here).
inline bool IsHost(DLDevice device) { return device.device_type == kDLCPU; }

}  // namespace tessel::runtime
