#pragma once

#include <absl/status/status.h>

#include <string>

#include "compiler/codegen/c_source/generate.h"
#include "compiler/target/gpu_facts.h"

// The OpenCL verifier: a kernel against the target's per-work-group limits (target::DescribeGpu:
// 256 work-items and 32 KiB of local memory for `opencl` and `opencl -device=mali`), enforced
// even where the device here would take more (PoCL's CPU device takes 4096 work-items and
// 512 KiB), so a schedule that passes here fits the Mali-class GPU it is meant for. Each
// violation is an InvalidArgument naming the kernel, what it uses, the limit and the target
// string `where`, so a tuner records the configuration as invalid instead of launching it.
// Checked from the IR before the source is built: work-items per group (when the work-group's
// extents are constants; symbolic ones are checked by the device at launch) and local memory
// (the kernel's "shared" allocations). Registers are the device compiler's business: OpenCL
// does not report them.
namespace tessel::codegen::opencl {

absl::Status CheckWorkGroupLimits(const c_source::GeneratedKernel& kernel,
                                  const target::GpuFacts& gpu, const std::string& where);

}  // namespace tessel::codegen::opencl
