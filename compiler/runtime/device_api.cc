#include "compiler/runtime/device_api.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "compiler/runtime/cpu_device_api.h"
#include "compiler/runtime/device_name.h"
#include "compiler/support/check.h"

namespace tessel::runtime {
namespace {

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

}  // namespace

void RegisterDeviceAPI(DLDeviceType device_type, std::unique_ptr<DeviceAPI> api) {
  const int type = TypeNumber({device_type, 0});
  TESSEL_CHECK(api != nullptr) << "null DeviceAPI for " << DeviceTypeName(type);
  Registry& r = Apis();
  std::lock_guard<std::mutex> lock(r.mu);
  const bool inserted = r.apis.emplace(type, std::move(api)).second;
  TESSEL_CHECK(inserted) << "device type " << DeviceTypeName(type) << " has two DeviceAPIs";
}

absl::StatusOr<DeviceAPI*> GetDeviceAPI(DLDevice device) {
  Registry& r = Apis();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.apis.find(TypeNumber(device));
  if (it != r.apis.end()) return it->second.get();
  std::vector<std::string> types;
  for (const auto& [type, api] : r.apis) types.push_back(DeviceTypeName(type));
  return absl::UnimplementedError(
      absl::StrCat("device ", DeviceName(device), ": no runtime for it is linked into this build",
                   " (devices with one: ", absl::StrJoin(types, ", "), ")"));
}

}  // namespace tessel::runtime
