#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <memory>

#include "compiler/runtime/device_api.h"
#include "hardware/vdla/driver/device.h"

// The runtime's `vdla` device (kDLExtDev): tensors live in the DRAM of a VDLA device (the driver,
// hardware/vdla/driver), which the host addresses directly, so a device pointer is a host pointer
// into that DRAM and copies are memcpy. Device 0 is opened on first use with the paper's
// configuration, 64 MiB of DRAM and the RTL engine; there is no other device. Allocations start
// on a whole entry of every memory type (256 bytes in the paper's configuration), so a program's
// loads and stores can address any tensor.
namespace tessel::runtime::vdla {

std::unique_ptr<DeviceAPI> MakeVdlaDeviceAPI();

// The driver behind `device` ({kDLExtDev, 0}); InvalidArgument naming any other.
absl::StatusOr<hardware::vdla::Device*> GetVdlaDevice(DLDevice device);

// The DRAM byte offset of a pointer into `device`'s DRAM, as instructions address it;
// InvalidArgument when it points elsewhere.
absl::StatusOr<uint64_t> DramOffset(DLDevice device, const void* ptr);

}  // namespace tessel::runtime::vdla
