#include "compiler/runtime/device_api.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "compiler/runtime/cpu_device_api.h"
#include "compiler/support/check.h"

namespace tessel::runtime {
namespace {

// The device type as a number. A tensor from a newer DLPack may carry a type this header's enum
// cannot hold, so the field is read as the int it is stored as, never as a DLDeviceType value.
int TypeNumber(const DLDevice& device) {
  static_assert(sizeof(device.device_type) == sizeof(int));
  int number;
  std::memcpy(&number, &device.device_type, sizeof(number));
  return number;
}

// Never destroyed, so that arrays freed by static destructors still find their API.
struct Registry {
  std::mutex mu;
  std::map<int, std::unique_ptr<DeviceAPI>> apis;  // by TypeNumber
};

Registry& Apis() {
  static Registry* registry = [] {
    auto* r = new Registry;
    r->apis.emplace(kDLCPU, MakeCpuDeviceAPI());
    return r;
  }();
  return *registry;
}

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

std::string TypeText(int type) {
  const char* name = TypeName(type);
  return name != nullptr ? name : absl::StrCat("device_type_", type);
}

}  // namespace

void RegisterDeviceAPI(DLDeviceType device_type, std::unique_ptr<DeviceAPI> api) {
  const int type = TypeNumber({device_type, 0});
  TESSEL_CHECK(api != nullptr) << "null DeviceAPI for " << TypeText(type);
  Registry& r = Apis();
  std::lock_guard<std::mutex> lock(r.mu);
  const bool inserted = r.apis.emplace(type, std::move(api)).second;
  TESSEL_CHECK(inserted) << "device type " << TypeText(type) << " has two DeviceAPIs";
}

absl::StatusOr<DeviceAPI*> GetDeviceAPI(DLDevice device) {
  Registry& r = Apis();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.apis.find(TypeNumber(device));
  if (it != r.apis.end()) return it->second.get();
  std::vector<std::string> types;
  for (const auto& [type, api] : r.apis) types.push_back(TypeText(type));
  return absl::UnimplementedError(
      absl::StrCat("device ", DeviceName(device), ": no runtime for it is linked into this build",
                   " (devices with one: ", absl::StrJoin(types, ", "), ")"));
}

std::string DeviceName(DLDevice device) {
  return absl::StrCat(TypeText(TypeNumber(device)), ":", device.device_id);
}

}  // namespace tessel::runtime
