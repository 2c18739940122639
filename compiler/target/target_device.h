#pragma once

#include <dlpack/dlpack.h>

#include "compiler/target/target.h"

// Where code built for a target runs: the host for `llvm`, device 0 of the GPU's kind for `cuda`
// (kDLCUDA) and `opencl` (kDLOpenCL), and for `vdla` the DRAM of its device (kDLExtDev,
// runtime/vdla/vdla_device_api.h). Tensors passed to a function built for the target must live
// there.
namespace tessel::target {

DLDevice TargetDevice(const Target& target);

}  // namespace tessel::target
