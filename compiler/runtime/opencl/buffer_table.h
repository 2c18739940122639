#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <optional>

// The convention for a kDLOpenCL DLTensor's `data`: an address of a private, never-dereferenced
// address space that stands for a cl_mem, handed out by the OpenCL DeviceAPI's Allocate.
//
// Why not the cl_mem itself: the runtime's checks (module.h's PackArguments) treat data +
// byte_offset as an address: its alignment is checked, and written tensors must not overlap
// other arguments. A cl_mem is a handle to a small host object, so two buffers' handles could
// look overlapping, and an offset into a buffer could not be said at all. Each allocation here
// gets its own range, 4 KiB-aligned, at or above 2^62 (never a valid host pointer on x86-64 or
// AArch64, so a host pointer is never mistaken for a buffer), never reused in a process.
// data + byte_offset of a tensor inside an allocation resolves to that cl_mem and the offset.
namespace tessel::runtime::opencl {

struct BufferRef {
  cl_mem mem = nullptr;
  size_t offset = 0;  // bytes from the start of the buffer
  size_t size = 0;    // bytes of the whole buffer
  int device_id = 0;  // the device it was allocated for (its queue orders its work)
};

// Thread-safe.
class BufferTable {
 public:
  // A new address for `mem` of `size` bytes.
  static uintptr_t Add(cl_mem mem, size_t size, int device_id);
  // Forgets the allocation at `address` (as Add returned it) and returns its cl_mem, or null.
  static cl_mem Remove(uintptr_t address);
  // The buffer `address` falls in (an address one past the end of an allocation included, for
  // empty tensors), or nullopt when it is in none.
  static std::optional<BufferRef> Find(uintptr_t address);
};

}  // namespace tessel::runtime::opencl
