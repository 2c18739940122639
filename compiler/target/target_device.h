#pragma once

#include <dlpack/dlpack.h>

#include "compiler/target/target.h"

// Where code built for a target runs: the host for `llvm` (and `vdla`, whose simulator runs on
// the host), device 0 of the GPU's kind for `cuda` (kDLCUDA) and `opencl` (kDLOpenCL). Tensors
// passed to a function built for the target must live there.
namespace tessel::target {

DLDevice TargetDevice(const Target& target);

}  // namespace tessel::target
