// Registers the OpenCL DeviceAPI for kDLOpenCL when this library is linked (alwayslink).
#include "compiler/runtime/opencl/opencl_device_api.h"

namespace tessel::runtime::opencl {
namespace {

[[maybe_unused]] const bool kRegistered =
    (RegisterDeviceAPI(kDLOpenCL, MakeOpenclDeviceAPI()), true);

}  // namespace
}  // namespace tessel::runtime::opencl
