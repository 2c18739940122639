#pragma once

#include <CL/cl.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <string>
#include <vector>

// The OpenCL platform this process uses, found once through the ICD loader, and OpenCL's errors
// as Status.
//
// The platform: the first one with a GPU device, else the first with any device (on these
// machines PoCL's CPU device). Device ids of kDLOpenCL (DLDevice::device_id) number that
// platform's devices of the chosen type, in the order the platform lists them. One context holds
// them all, with one in-order command queue per device: a device's copies and kernels run in the
// order they were queued.
namespace tessel::runtime::opencl {

struct Platform {
  cl_platform_id id = nullptr;
  std::string name;  // "Portable Computing Language"
  cl_context context = nullptr;
  std::vector<cl_device_id> devices;
  std::vector<std::string> device_names;
  std::vector<cl_command_queue> queues;  // one per device
};

// The platform, or Unavailable with the reason there is none ("no OpenCL platform: ..."): no
// ICD installed, or no device on any platform. The answer is found once and kept.
absl::StatusOr<const Platform*> GetPlatform();

// The device of that id; InvalidArgument naming the id and how many there are.
absl::Status CheckDevice(const Platform& platform, int device_id);

// "CL_INVALID_VALUE" for CL_INVALID_VALUE; "OpenCL error -1234" for a code it does not know.
std::string ErrorName(cl_int code);

// OK for CL_SUCCESS; otherwise an error "<call>: <ErrorName> (<code>)", ResourceExhausted for
// the out-of-memory codes, Internal for the rest.
absl::Status CheckCl(cl_int code, const char* call);

}  // namespace tessel::runtime::opencl
