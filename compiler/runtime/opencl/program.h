#pragma once

#include <CL/cl.h>
#include <absl/status/statusor.h>

#include <string>

#include "compiler/runtime/opencl/opencl_api.h"

// OpenCL C source to a program built for one device (clBuildProgram, -cl-std=CL1.2).
namespace tessel::runtime::opencl {

// The built program, released by the caller. A source that does not build is InvalidArgument
// "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11) on <device>; build log:\n<the compiler's log>".
absl::StatusOr<cl_program> BuildProgram(const Platform& platform, int device_id,
                                        const std::string& source);

// Builds `source` for device 0 of the platform and releases it: Build (codegen/opencl) uses it to
// report a kernel that does not compile before any launch. Unavailable, with the reason, where
// there is no OpenCL platform.
absl::Status CheckProgramBuilds(const std::string& source);

}  // namespace tessel::runtime::opencl
