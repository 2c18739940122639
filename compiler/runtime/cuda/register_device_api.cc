// Registers the CUDA DeviceAPI for kDLCUDA when this library is linked (alwayslink).
#include "compiler/runtime/cuda/cuda_device_api.h"

namespace tessel::runtime::cuda {
namespace {

[[maybe_unused]] const bool kRegistered =
    (RegisterDeviceAPI(kDLCUDA, MakeCudaDeviceAPI()), true);

}  // namespace
}  // namespace tessel::runtime::cuda
