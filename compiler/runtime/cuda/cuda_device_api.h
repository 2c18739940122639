#pragma once

#include <memory>

#include "compiler/runtime/device_api.h"

// The DeviceAPI of kDLCUDA devices, through the driver API (driver_api.h). Linking
// //compiler/runtime/cuda:device_api registers it (alwayslink); nothing here needs a driver until
// a method is called.
//
// - Allocate: cuMemAlloc in the device's primary context. Its addresses are 256-byte aligned, so
//   any alignment up to 256 holds; a larger one is InvalidArgument. 0 bytes allocate 1 (the
//   driver refuses 0), so Free always gets a real pointer.
// - Copy: host to device, device to host and device to device on one device, with the
//   synchronous cuMemcpy calls: every copy is complete when it returns (the contract allows
//   more). Copies between two CUDA devices are Unimplemented (copy through the host).
// - Synchronize: cuCtxSynchronize of the device's primary context; it reports a kernel's fault.
// Every method returns Unavailable with the driver's reason where there is no driver
// ("no CUDA driver: libcuda.so.1 not found ..."), Free excepted: it has nothing to free then.
namespace tessel::runtime::cuda {

std::unique_ptr<DeviceAPI> MakeCudaDeviceAPI();

}  // namespace tessel::runtime::cuda
