#pragma once

#include <absl/status/statusor.h>

#include "compiler/codegen/slot_signature.h"

// The calling convention of a GPU kernel (CUDA or OpenCL): the slots of codegen/slot_signature.h,
// the kernel's C parameters in order, so that the runtime passes the packed slots as they are
// (runtime/cuda/cuda_module.h, runtime/opencl/opencl_module.h).
namespace tessel::codegen::gpu {

using KernelSignature = SlotSignature;

inline absl::StatusOr<KernelSignature> MakeKernelSignature(const ir::PrimFunc& func) {
  return MakeSlotSignature(func, "a GPU kernel");
}

}  // namespace tessel::codegen::gpu
