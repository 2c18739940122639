#pragma once

#include <memory>

#include "compiler/runtime/device_api.h"

// The DeviceAPI of kDLOpenCL devices (opencl_api.h says which). Linking
// //compiler/runtime/opencl:device_api registers it (alwayslink); nothing here needs a platform
// until a method is called.
//
// - Allocate: clCreateBuffer (read-write) in the platform's context; the tensor's data is an
//   address standing for the buffer (buffer_table.h), 4 KiB-aligned, so any alignment up to
//   4096 holds. 0 bytes allocate 1 (OpenCL refuses 0).
// - Copy: host to device, device to host (clEnqueueWriteBuffer / clEnqueueReadBuffer, blocking)
//   and device to device on one device (clEnqueueCopyBuffer, queued), at byte offsets into the
//   buffers. Copies between two OpenCL devices are Unimplemented (copy through the host).
// - Synchronize: clFinish of the device's queue.
// Every method returns Unavailable with the reason where there is no OpenCL platform ("no OpenCL
// platform: ..."), Free excepted: it has nothing to free then. Errors name the device and carry
// OpenCL's error name.
namespace tessel::runtime::opencl {

std::unique_ptr<DeviceAPI> MakeOpenclDeviceAPI();

}  // namespace tessel::runtime::opencl
