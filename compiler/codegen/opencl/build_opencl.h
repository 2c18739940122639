#pragma once

#include <absl/status/statusor.h>

#include <vector>

#include "compiler/codegen/build.h"
#include "compiler/ir/stmt.h"
#include "compiler/runtime/opencl/opencl_module.h"
#include "compiler/target/gpu_facts.h"
#include "compiler/target/target.h"

// The OpenCL pipeline, one linear sequence:
//   GenerateOpencl (codegen_opencl.h) -> CheckWorkGroupLimits (verify.h) -> clBuildProgram on the
//   OpenCL device here, where there is one -> an "opencl" module (runtime/opencl).
// Building here reports a kernel that does not compile at Build time, with the build log; where
// no OpenCL platform is installed that step is skipped and the module builds its program at its
// first launch instead (the module is still made, saved and loaded). BuildOptions: dump_ir
// receives the OpenCL C source (before any check that could fail after it), timing each step's
// microseconds; there is no assembly to dump.
//
// The registered backend (backend.cc) checks against the target's GpuFacts (DescribeGpu).
namespace tessel::codegen::opencl {

struct OpenclBuild {
  runtime::Module module;
  runtime::opencl::OpenclModuleData data;  // what the module holds: source and kernels
};

absl::StatusOr<OpenclBuild> BuildOpencl(const std::vector<ir::PrimFunc>& funcs,
                                        const target::Target& target, const target::GpuFacts& gpu,
                                        const BuildOptions& options = {});

}  // namespace tessel::codegen::opencl
