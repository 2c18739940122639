#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/runtime/function_signature.h"
#include "compiler/runtime/launch_expr.h"
#include "compiler/runtime/module.h"

// An OpenCL module: the OpenCL C source of one compiled program and its kernels, behind
// runtime::Module (kind "opencl").
//
// Kernels: kernel k is a `__kernel` function named signatures[k].name whose parameters are the
// argument slots in order (function_signature.h): a tensor as a `__global` pointer to its first
// element, an integer or float scalar in its own type (int32 as int, int64 as long, ...). It is
// enqueued as an NDRange of 3 dimensions with a global size of grid x block and a local
// (work-group) size of block, both evaluated from the slots (launch_expr.h), on the device's
// queue: launches and the OpenCL DeviceAPI's copies run in order, and a launch returns before the
// kernel ends (DeviceAPI::Synchronize waits).
//
// Building: the source is built (clBuildProgram) for a device at the first launch there, so a
// module is made, inspected and saved where there is no OpenCL platform; a source that does not
// build is an error carrying the build log.
//
// Calling: through runtime::Module::GetFunction; the module's device_type() is kDLOpenCL, so
// every tensor argument must be on one OpenCL device (PackArguments checks that and the rest).
// Each tensor's data + byte_offset must be the start of a buffer of the OpenCL DeviceAPI
// (buffer_table.h); a tensor at an offset into a buffer is refused (Unimplemented), as is data
// that is no buffer of this runtime (a DLTensor that claims a device it is not on), naming the
// argument. The kernel runs on that buffer's device.
namespace tessel::runtime::opencl {

struct OpenclKernel {
  FunctionSignature signature;
  LaunchDims launch;  // grid (work-groups) and block (work-items per group)
};

struct OpenclModuleData {
  std::string source;  // OpenCL C
  std::vector<OpenclKernel> kernels;
};

Module MakeOpenclModule(OpenclModuleData data);

// Save (ModuleNode::Save) writes the source to `path` (".cl") and, beside it at
// `path + ".json"`, each kernel's signature and launch extents (module_file.h); LoadOpenclModule
// reads both back. Errors name the file and what is malformed.
absl::StatusOr<Module> LoadOpenclModule(const std::string& path);

}  // namespace tessel::runtime::opencl
