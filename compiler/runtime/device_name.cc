#include "compiler/runtime/device_name.h"

#include <absl/strings/str_cat.h>

#include <cstring>

namespace tessel::runtime {
namespace {

const char* TypeName(int type) {
  switch (type) {
    case kDLCPU:
      return "cpu";
    case kDLCUDA:
      return "cuda";
    case kDLCUDAHost:
      return "cuda_host";
    case kDLOpenCL:
      return "opencl";
    case kDLVulkan:
      return "vulkan";
    case kDLMetal:
      return "metal";
    case kDLVPI:
      return "vpi";
    case kDLROCM:
      return "rocm";
    case kDLROCMHost:
      return "rocm_host";
    case kDLExtDev:
      return "ext_dev";
    case kDLCUDAManaged:
      return "cuda_managed";
  }
  return nullptr;
}

}  // namespace

int TypeNumber(const DLDevice& device) {
  static_assert(sizeof(device.device_type) == sizeof(int));
  int number;
  std::memcpy(&number, &device.device_type, sizeof(number));
  return number;
}

std::string DeviceTypeName(int type) {
  const char* name = TypeName(type);
  return name != nullptr ? name : absl::StrCat("device_type_", type);
}

std::string DeviceName(DLDevice device) {
  return absl::StrCat(DeviceTypeName(TypeNumber(device)), ":", device.device_id);
}

}  // namespace tessel::runtime
