#include "compiler/runtime/opencl/opencl_api.h"

#include <absl/strings/str_cat.h>

#include <memory>

namespace tessel::runtime::opencl {
namespace {

std::string PlatformName(cl_platform_id p) {
  char name[256] = {};
  clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
  return name;
}

std::string DeviceName(cl_device_id d) {
  char name[256] = {};
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  return name;
}

// The devices of `type` on platform p (none when it has none).
std::vector<cl_device_id> DevicesOf(cl_platform_id p, cl_device_type type) {
  cl_uint n = 0;
  if (clGetDeviceIDs(p, type, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_device_id> devices(n);
  if (clGetDeviceIDs(p, type, n, devices.data(), nullptr) != CL_SUCCESS) return {};
  return devices;
}

absl::StatusOr<Platform*> Discover() {
  const std::string hint =
      " (the ICD loader reads /etc/OpenCL/vendors; install an OpenCL driver, e.g. "
      "pocl-opencl-icd)";
  cl_uint count = 0;
  const cl_int err = clGetPlatformIDs(0, nullptr, &count);
  if (err != CL_SUCCESS || count == 0) {
    return absl::UnavailableError(absl::StrCat(
        "no OpenCL platform: clGetPlatformIDs: ",
        err == CL_SUCCESS ? std::string("0 platforms") : ErrorName(err), hint));
  }
  std::vector<cl_platform_id> ids(count);
  if (absl::Status s = CheckCl(clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs");
      !s.ok()) {
    return absl::UnavailableError(absl::StrCat("no OpenCL platform: ", s.message()));
  }
  auto platform = std::make_unique<Platform>();
  for (cl_device_type type : {cl_device_type{CL_DEVICE_TYPE_GPU}, cl_device_type{CL_DEVICE_TYPE_ALL}}) {
    for (cl_platform_id id : ids) {
      std::vector<cl_device_id> devices = DevicesOf(id, type);
      if (devices.empty()) continue;
      platform->id = id;
      platform->devices = std::move(devices);
      break;
    }
    if (platform->id != nullptr) break;
  }
  if (platform->id == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("no OpenCL device: ", count, " platform(s), none with a device", hint));
  }
  platform->name = PlatformName(platform->id);
  cl_int code = CL_SUCCESS;
  const cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform->id), 0};
  platform->context =
      clCreateContext(props, static_cast<cl_uint>(platform->devices.size()),
                      platform->devices.data(), nullptr, nullptr, &code);
  if (absl::Status s = CheckCl(code, "clCreateContext"); !s.ok()) {
    return absl::UnavailableError(absl::StrCat("OpenCL platform '", platform->name, "': ",
                                               s.message()));
  }
  for (cl_device_id d : platform->devices) {
    platform->device_names.push_back(DeviceName(d));
    cl_command_queue q = clCreateCommandQueue(platform->context, d, 0, &code);
    if (absl::Status s = CheckCl(code, "clCreateCommandQueue"); !s.ok()) {
      return absl::UnavailableError(absl::StrCat("OpenCL device '", DeviceName(d), "': ",
                                                 s.message()));
    }
    platform->queues.push_back(q);
  }
  return platform.release();
}

}  // namespace

absl::StatusOr<const Platform*> GetPlatform() {
  // Kept for the life of the process: buffers and programs of every module live in its context.
  static const absl::StatusOr<Platform*>* const kPlatform =
      new absl::StatusOr<Platform*>(Discover());
  if (!kPlatform->ok()) return kPlatform->status();
  return **kPlatform;
}

absl::Status CheckDevice(const Platform& platform, int device_id) {
  if (device_id >= 0 && device_id < static_cast<int>(platform.devices.size())) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("opencl:", device_id, " does not exist: ",
                                                 platform.name, " has ",
                                                 platform.devices.size(), " device(s)"));
}

std::string ErrorName(cl_int code) {
  switch (code) {
#define TESSEL_CL_ERROR(name) \
  case name:                  \
    return #name;
    TESSEL_CL_ERROR(CL_SUCCESS)
    TESSEL_CL_ERROR(CL_DEVICE_NOT_FOUND)
    TESSEL_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    TESSEL_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    TESSEL_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    TESSEL_CL_ERROR(CL_OUT_OF_RESOURCES)
    TESSEL_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    TESSEL_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    TESSEL_CL_ERROR(CL_MEM_COPY_OVERLAP)
    TESSEL_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    TESSEL_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    TESSEL_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    TESSEL_CL_ERROR(CL_MAP_FAILURE)
    TESSEL_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    TESSEL_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    TESSEL_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    TESSEL_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    TESSEL_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    TESSEL_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    TESSEL_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    TESSEL_CL_ERROR(CL_INVALID_VALUE)
    TESSEL_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    TESSEL_CL_ERROR(CL_INVALID_PLATFORM)
    TESSEL_CL_ERROR(CL_INVALID_DEVICE)
    TESSEL_CL_ERROR(CL_INVALID_CONTEXT)
    TESSEL_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    TESSEL_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    TESSEL_CL_ERROR(CL_INVALID_HOST_PTR)
    TESSEL_CL_ERROR(CL_INVALID_MEM_OBJECT)
    TESSEL_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    TESSEL_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    TESSEL_CL_ERROR(CL_INVALID_SAMPLER)
    TESSEL_CL_ERROR(CL_INVALID_BINARY)
    TESSEL_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    TESSEL_CL_ERROR(CL_INVALID_PROGRAM)
    TESSEL_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    TESSEL_CL_ERROR(CL_INVALID_KERNEL_NAME)
    TESSEL_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    TESSEL_CL_ERROR(CL_INVALID_KERNEL)
    TESSEL_CL_ERROR(CL_INVALID_ARG_INDEX)
    TESSEL_CL_ERROR(CL_INVALID_ARG_VALUE)
    TESSEL_CL_ERROR(CL_INVALID_ARG_SIZE)
    TESSEL_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    TESSEL_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    TESSEL_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    TESSEL_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    TESSEL_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    TESSEL_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    TESSEL_CL_ERROR(CL_INVALID_EVENT)
    TESSEL_CL_ERROR(CL_INVALID_OPERATION)
    TESSEL_CL_ERROR(CL_INVALID_GL_OBJECT)
    TESSEL_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    TESSEL_CL_ERROR(CL_INVALID_MIP_LEVEL)
    TESSEL_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    TESSEL_CL_ERROR(CL_INVALID_PROPERTY)
    TESSEL_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    TESSEL_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    TESSEL_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    TESSEL_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef TESSEL_CL_ERROR
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return absl::StrCat("OpenCL error ", code);
  }
}

absl::Status CheckCl(cl_int code, const char* call) {
  if (code == CL_SUCCESS) return absl::OkStatus();
  const std::string message = absl::StrCat(call, ": ", ErrorName(code), " (", code, ")");
  if (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
      code == CL_OUT_OF_HOST_MEMORY) {
    return absl::ResourceExhaustedError(message);
  }
  return absl::InternalError(message);
}

}  // namespace tessel::runtime::opencl
