#pragma once

#include <dlpack/dlpack.h>

#include <string>

#include "compiler/codegen/gpu/testing/gpu_kernels.h"
#include "compiler/runtime/module.h"

// The check every GPU backend's run test makes (gtest assertions): a test kernel run through a
// built module on a device, and the reference interpreter on the same random inputs (uniform in
// [-1, 1) from `seed`); the output (the last tensor) starts as NaN on both sides, so an element
// the kernel never writes fails. Per element |device - interp| <= tolerance * (1 + |interp|);
// the first five differences are reported by index, with `what` ("cuda", "opencl") and `context`
// (the kernel's source, say) on failure.
namespace tessel::codegen::gpu::testing {

void ExpectMatchesInterpreter(const GpuKernel& k, const runtime::Module& module, DLDevice device,
                              int seed, double tolerance, const std::string& what,
                              const std::string& context = "");

}  // namespace tessel::codegen::gpu::testing
