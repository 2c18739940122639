#pragma once

#include <optional>
#include <string>

#include "compiler/codegen/gpu/kernel_launch.h"
#include "compiler/target/gpu_facts.h"

// A kernel's launch extents against a GPU's per-dimension limits, shared by the backends'
// verifiers (codegen/cuda/verify.h, codegen/opencl/verify.h), which word the error.
namespace tessel::codegen::gpu {

// The first constant extent past its dimension's limit, as "threadIdx.z extent 128 exceeds its
// limit of 64"; nullopt when every constant extent fits (symbolic ones are the driver's to check
// at launch).
std::optional<std::string> ExtentPastLimit(const KernelLaunch& launch, const target::GpuFacts& gpu);

}  // namespace tessel::codegen::gpu
