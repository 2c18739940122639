#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/codegen/build.h"
#include "compiler/ir/stmt.h"
#include "compiler/runtime/cuda/cuda_module.h"
#include "compiler/target/target.h"
#include "compiler/codegen/cuda/verify.h"

// The CUDA pipeline, one linear sequence:
//   GenerateCuda (codegen_cuda.h) -> CheckKernelLimits (verify.h) -> NVRTC to PTX
//   -> ptxas to a cubin with each kernel's resources -> CheckKernelResources -> a "cuda" module.
// BuildOptions: dump_ir receives the CUDA source, dump_asm the PTX (both before any check that
// could fail after them), timing each step's microseconds.
//
// The registered backend (backend.cc) checks against the target's GpuFacts (DescribeGpu); a
// program that knows its GPU (the run test asks the driver) passes that GPU's own.
namespace tessel::codegen::cuda {

struct CudaBuild {
  runtime::Module module;
  runtime::cuda::CudaModuleData data;  // what the module holds: source, PTX, cubin, resources
};

// "sm_90" from `cuda -arch=sm_90`; the default (sm_90) when the target names none.
std::string ArchOf(const target::Target& target);

absl::StatusOr<CudaBuild> BuildCuda(const std::vector<ir::PrimFunc>& funcs,
                                    const target::Target& target, const target::GpuFacts& gpu,
                                    const BuildOptions& options = {});

}  // namespace tessel::codegen::cuda
