#include "compiler/runtime/device_probe.h"

#include "compiler/runtime/device_api.h"
#include "compiler/support/status_macros.h"

namespace tessel::runtime {

absl::Status ProbeDevice(DLDevice device) {
  TESSEL_ASSIGN_OR_RETURN(DeviceAPI * api, GetDeviceAPI(device));
  TESSEL_ASSIGN_OR_RETURN(void* probe, api->Allocate(device, 4, 64));
  api->Free(device, probe);
  return absl::OkStatus();
}

}  // namespace tessel::runtime
