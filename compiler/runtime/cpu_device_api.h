#pragma once

#include <memory>

#include "compiler/runtime/device_api.h"

// The host's DeviceAPI (kDLCPU). Private to the runtime: the registry (device_api.cc) creates it
// when it is first used, instead of a static initializer, so that no static initializer elsewhere
// can run before it and find the host without an API.
namespace tessel::runtime {

// Allocates with the alignment asked (at least alignof(std::max_align_t)); copies with memcpy;
// synchronizing does nothing, since every host copy is complete when it returns.
std::unique_ptr<DeviceAPI> MakeCpuDeviceAPI();

}  // namespace tessel::runtime
