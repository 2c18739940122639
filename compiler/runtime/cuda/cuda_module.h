#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compiler/runtime/launch_expr.h"
#include "compiler/runtime/function_signature.h"
#include "compiler/runtime/module.h"

// A CUDA module: the kernels of one compiled program as a cubin (with the PTX and CUDA source it
// came from), behind runtime::Module (kind "cuda").
//
// Kernels: kernel k is an `extern "C" __global__` function named signatures[k].name whose
// parameters are the argument slots in order (function_signature.h): a tensor as a device
// pointer to its first element, an integer or float scalar in its own type (int32 as int, ...).
// It is launched on a grid and block evaluated from the slots (launch_expr.h), with static
// shared memory only, on the device's default stream: launches and the CUDA DeviceAPI's copies
// run in order, and a launch returns before the kernel ends (DeviceAPI::Synchronize waits and
// reports a fault).
//
// Loading: the cubin is loaded (cuModuleLoadData) on a device at its first launch there, so a
// module is made, inspected and saved on a machine without a GPU; only launching needs one.
//
// Calling: through runtime::Module::GetFunction like host code; the module's device_type() is
// kDLCUDA, so every tensor argument must be on one CUDA device (PackArguments checks that and
// the rest: dtype, shape, strides, alignment). The launch also checks with the driver that each
// tensor pointer is CUDA memory (a DLTensor that claims a device it is not on is an error naming
// the argument); the kernel runs on that device.
namespace tessel::runtime::cuda {

// What the assembler reported for one kernel (ptxas --verbose).
struct KernelResources {
  int registers = 0;              // 32-bit registers per thread
  int64_t shared_bytes = 0;       // static shared memory per block
  int64_t stack_bytes = 0;        // per-thread stack frame
  int64_t spill_store_bytes = 0;  // per thread
  int64_t spill_load_bytes = 0;
  int64_t constant_bytes = 0;     // bank 0: the parameters
};

struct CudaKernel {
  FunctionSignature signature;
  LaunchDims launch;
  KernelResources resources;
};

struct CudaModuleData {
  std::string arch;  // "sm_90": what the cubin runs on
  std::string cubin;
  std::string ptx;
  std::string source;  // CUDA C
  std::vector<CudaKernel> kernels;
};

Module MakeCudaModule(CudaModuleData data);

// Save (ModuleNode::Save) writes the cubin to `path` and, beside it at `path + ".json"`, the
// arch, each kernel's signature, launch extents and resources (each file written to a temporary
// name and renamed). LoadCudaModule reads both back (without the PTX and source); errors name the
// file and what is malformed.
absl::StatusOr<Module> LoadCudaModule(const std::string& path);

}  // namespace tessel::runtime::cuda
