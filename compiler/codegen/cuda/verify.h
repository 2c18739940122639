#pragma once

#include <absl/status/status.h>

#include <string>

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/runtime/cuda/cuda_module.h"
#include "compiler/target/gpu_facts.h"

// The GPU verifier: a kernel against the per-block limits of the target. Each violation is an
// InvalidArgument naming the kernel, what it uses and the limit (and the target string `where`),
// so a tuner records the configuration as invalid instead of launching it.
namespace tessel::codegen::cuda {

// Before compiling, from the IR: threads per block (when the block's extents are constants;
// symbolic ones are checked by the driver at launch) and shared memory (the kernel's shared
// allocations).
absl::Status CheckKernelLimits(const GeneratedKernel& kernel, const target::GpuFacts& gpu,
                               const std::string& where);

// After assembling, from ptxas's report: shared memory, registers per thread, and registers per
// block (registers per thread x threads per block, when the threads are constant).
absl::Status CheckKernelResources(const GeneratedKernel& kernel,
                                  const runtime::cuda::KernelResources& resources,
                                  const target::GpuFacts& gpu, const std::string& where);

}  // namespace tessel::codegen::cuda
