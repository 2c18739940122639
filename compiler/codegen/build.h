#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/runtime/module.h"
#include "compiler/target/target.h"

// Build: lowered functions to a runtime::Module for a target, by the backend registered for the
// target's kind. Each backend lives in its own folder under compiler/codegen and registers itself
// when linked in (//compiler/codegen:build links every backend of this build):
//   llvm: LLVM IR (codegen/llvm) -> optimization (-opt-level, O3 by default) -> object file ->
//         in-memory link (this host) or kept for saving (other triples).
//   cuda: each function one kernel (codegen/cuda) -> CUDA C -> NVRTC -> PTX -> ptxas -> cubin,
//         checked against the target's GPU limits -> a "cuda" module (runtime/cuda), whose
//         kernels run where a CUDA driver and GPU are.
//   opencl: each function one kernel (codegen/opencl) -> OpenCL C 1.2, checked against the
//         target's work-group limits (Mali's with -device=mali) -> clBuildProgram where an OpenCL
//         platform is installed -> an "opencl" module (runtime/opencl), whose kernels run on any
//         OpenCL device (PoCL's CPU device here).
//   vdla: each function one instruction stream (codegen/vdla) -> a "vdla" module (runtime/vdla),
//         run on the VDLA device's simulator. Linked only by programs that run VDLA
//         (//compiler/codegen/vdla:backend), not by //compiler/codegen:build.
namespace tessel::codegen {

struct BuildOptions {
  // When set, the backend's intermediate code (LLVM IR before and after optimization; CUDA C;
  // OpenCL C) goes here.
  std::ostream* dump_ir = nullptr;
  // When set, the target's assembly (x86 or AArch64 assembly; PTX) is printed here.
  std::ostream* dump_asm = nullptr;
  // When set, each step's wall time is printed here (microseconds).
  std::ostream* timing = nullptr;
};

using Backend = std::function<absl::StatusOr<runtime::Module>(
    const std::vector<ir::PrimFunc>&, const target::Target&, const BuildOptions&)>;

// Registers the backend of target kind `kind`; returns true so that a backend can register from a
// static initializer. A kind registered twice is an internal error.
bool RegisterBackend(const std::string& kind, Backend backend);

// The kinds with a backend in this build, sorted.
std::vector<std::string> BackendKinds();

// Errors name the function and what cannot be compiled for the target, or a kind without a backend.
absl::StatusOr<runtime::Module> Build(const std::vector<ir::PrimFunc>& funcs,
                                      const target::Target& target,
                                      const BuildOptions& options = {});

}  // namespace tessel::codegen
