#pragma once

#include <dlpack/dlpack.h>

#include <string>

// Devices as text, for messages.
namespace tessel::runtime {

// The device type as a number. A tensor from a newer DLPack may carry a type this header's enum
// cannot hold, so the field is read as the int it is stored as, never as a DLDeviceType value.
int TypeNumber(const DLDevice& device);

// DLPack's name of device type `type` (without "kDL", in lower_snake_case: "cpu", "cuda",
// "ext_dev"), or "device_type_<number>" for a type DLPack does not name.
std::string DeviceTypeName(int type);

// "cpu:0", "cuda:1", "ext_dev:0": DLPack's name of the device type (without "kDL", in
// lower_snake_case) and the device id, for messages. A type DLPack does not name prints as
// "device_type_<number>:<id>".
std::string DeviceName(DLDevice device);

}  // namespace tessel::runtime
