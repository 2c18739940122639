#include "compiler/runtime/opencl/opencl_device_api.h"

#include <absl/strings/str_cat.h>

#include <cstring>

#include "compiler/runtime/dltensor.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/opencl/buffer_table.h"
#include "compiler/runtime/opencl/opencl_api.h"

namespace tessel::runtime::opencl {
namespace {

constexpr size_t kAddressAlignment = 4096;

char* FirstByte(const DLTensor& t) { return static_cast<char*>(t.data) + t.byte_offset; }

absl::StatusOr<const Platform*> PlatformFor(DLDevice device) {
  absl::StatusOr<const Platform*> platform = GetPlatform();
  if (!platform.ok()) return platform.status();
  if (absl::Status s = CheckDevice(**platform, device.device_id); !s.ok()) return s;
  return platform;
}

// The buffer behind a device tensor's first byte, with room for `bytes` bytes.
absl::StatusOr<BufferRef> BufferOf(const DLTensor& t, size_t bytes) {
  std::optional<BufferRef> ref = BufferTable::Find(reinterpret_cast<uintptr_t>(FirstByte(t)));
  if (!ref) {
    return absl::InvalidArgumentError(absl::StrCat(
        DeviceName(t.device), ": the tensor's data is not an OpenCL buffer of this runtime"));
  }
  if (ref->offset + bytes > ref->size) {
    return absl::InvalidArgumentError(absl::StrCat(DeviceName(t.device), ": ", bytes,
                                                   " bytes at offset ", ref->offset,
                                                   " run past the buffer's ", ref->size));
  }
  return *ref;
}

class OpenclDeviceAPI final : public DeviceAPI {
 public:
  absl::StatusOr<void*> Allocate(DLDevice device, size_t nbytes, size_t alignment) override {
    if (alignment > kAddressAlignment) {
      return absl::InvalidArgumentError(absl::StrCat(
          DeviceName(device), ": alignment ", alignment, " exceeds the OpenCL runtime's ",
          kAddressAlignment));
    }
    absl::StatusOr<const Platform*> platform = PlatformFor(device);
    if (!platform.ok()) return platform.status();
    const size_t size = nbytes == 0 ? 1 : nbytes;
    cl_int code = CL_SUCCESS;
    cl_mem mem = clCreateBuffer((*platform)->context, CL_MEM_READ_WRITE, size, nullptr, &code);
    if (absl::Status s = CheckCl(code, "clCreateBuffer"); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(DeviceName(device), ": allocating ", nbytes,
                                                 " bytes: ", s.message()));
    }
    return reinterpret_cast<void*>(BufferTable::Add(mem, size, device.device_id));
  }

  void Free(DLDevice, void* ptr) override {
    // Queued work that still uses the buffer keeps it alive: OpenCL releases it after that work.
    cl_mem mem = BufferTable::Remove(reinterpret_cast<uintptr_t>(ptr));
    if (mem != nullptr) clReleaseMemObject(mem);
  }

  absl::Status Copy(const DLTensor& from, const DLTensor& to) override {
    const size_t bytes = static_cast<size_t>(NumElements(from) * DLTypeBytes(from.dtype));
    const bool from_host = IsHost(from.device), to_host = IsHost(to.device);
    if (from_host && to_host) {
      if (bytes > 0) std::memmove(FirstByte(to), FirstByte(from), bytes);
      return absl::OkStatus();
    }
    if (!from_host && !to_host && from.device.device_id != to.device.device_id) {
      return absl::UnimplementedError(
          absl::StrCat("copy from ", DeviceName(from.device), " to ", DeviceName(to.device),
                       ": copy between OpenCL devices through the host"));
    }
    const DLDevice device = from_host ? to.device : from.device;
    absl::StatusOr<const Platform*> platform = PlatformFor(device);
    if (!platform.ok()) return platform.status();
    if (bytes == 0) return absl::OkStatus();
    cl_command_queue queue = (*platform)->queues[device.device_id];
    absl::Status s;
    if (from_host) {
      absl::StatusOr<BufferRef> dst = BufferOf(to, bytes);
      if (!dst.ok()) return dst.status();
      s = CheckCl(clEnqueueWriteBuffer(queue, dst->mem, CL_TRUE, dst->offset, bytes,
                                       FirstByte(from), 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
    } else if (to_host) {
      absl::StatusOr<BufferRef> src = BufferOf(from, bytes);
      if (!src.ok()) return src.status();
      s = CheckCl(clEnqueueReadBuffer(queue, src->mem, CL_TRUE, src->offset, bytes, FirstByte(to),
                                      0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
    } else {
      absl::StatusOr<BufferRef> src = BufferOf(from, bytes), dst = BufferOf(to, bytes);
      if (!src.ok()) return src.status();
      if (!dst.ok()) return dst.status();
      s = CheckCl(clEnqueueCopyBuffer(queue, src->mem, dst->mem, src->offset, dst->offset, bytes,
                                      0, nullptr, nullptr),
                  "clEnqueueCopyBuffer");
    }
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat("copy from ", DeviceName(from.device), " to ",
                                               DeviceName(to.device), " (", bytes,
                                               " bytes): ", s.message()));
  }

  absl::Status Synchronize(DLDevice device) override {
    absl::StatusOr<const Platform*> platform = PlatformFor(device);
    if (!platform.ok()) return platform.status();
    absl::Status s = CheckCl(clFinish((*platform)->queues[device.device_id]), "clFinish");
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat(DeviceName(device), ": ", s.message()));
  }
};

}  // namespace

std::unique_ptr<DeviceAPI> MakeOpenclDeviceAPI() { return std::make_unique<OpenclDeviceAPI>(); }

}  // namespace tessel::runtime::opencl
