#include "compiler/runtime/opencl/program.h"

#include <absl/strings/str_cat.h>

namespace tessel::runtime::opencl {

absl::StatusOr<cl_program> BuildProgram(const Platform& platform, int device_id,
                                        const std::string& source) {
  if (absl::Status s = CheckDevice(platform, device_id); !s.ok()) return s;
  cl_device_id device = platform.devices[device_id];
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int code = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(platform.context, 1, &text, &length, &code);
  if (absl::Status s = CheckCl(code, "clCreateProgramWithSource"); !s.ok()) return s;
  code = clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr);
  if (code == CL_SUCCESS) return program;
  size_t size = 0;
  std::string log;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) ==
          CL_SUCCESS &&
      size > 0) {
    log.resize(size);
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  }
  clReleaseProgram(program);
  absl::Status s = CheckCl(code, "clBuildProgram");
  const std::string message = absl::StrCat(s.message(), " on ", platform.device_names[device_id],
                                           "; build log:\n", log.empty() ? "(empty)" : log);
  if (code == CL_BUILD_PROGRAM_FAILURE) return absl::InvalidArgumentError(message);
  return absl::Status(s.code(), message);
}

absl::Status CheckProgramBuilds(const std::string& source) {
  absl::StatusOr<const Platform*> platform = GetPlatform();
  if (!platform.ok()) return platform.status();
  absl::StatusOr<cl_program> program = BuildProgram(**platform, 0, source);
  if (!program.ok()) return program.status();
  clReleaseProgram(*program);
  return absl::OkStatus();
}

}  // namespace tessel::runtime::opencl
