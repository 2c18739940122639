// Registers the VDLA DeviceAPI for kDLExtDev when this library is linked (alwayslink).
#include "compiler/runtime/vdla/vdla_device_api.h"

namespace tessel::runtime::vdla {
namespace {

[[maybe_unused]] const bool kRegistered = (RegisterDeviceAPI(kDLExtDev, MakeVdlaDeviceAPI()), true);

}  // namespace
}  // namespace tessel::runtime::vdla
