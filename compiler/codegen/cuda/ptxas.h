#pragma once

#include <absl/status/statusor.h>

#include <map>
#include <string>

#include "compiler/runtime/cuda/cuda_module.h"

// PTX to a cubin with the toolkit's assembler, run as a child process:
//   ptxas -arch=sm_NN --verbose -o kernel.cubin kernel.ptx
// in a fresh temporary directory, removed afterwards. Its --verbose report gives each entry
// function's registers, shared memory, stack frame, spills and constant bank 0.
//
// ptxas is looked up beside the NVRTC this build uses (its lib64/../bin), then in $CUDA_PATH/bin
// and /usr/local/cuda/bin. Errors: FailedPrecondition naming the places looked in when there is
// none (or no toolkit in this build); InvalidArgument with ptxas's output when it refuses the PTX
// (too much shared memory, say).
namespace tessel::codegen::cuda {

struct Assembled {
  std::string cubin;
  std::string log;  // ptxas's --verbose output
  std::map<std::string, runtime::cuda::KernelResources> resources;  // by entry function
};

absl::StatusOr<Assembled> Assemble(const std::string& ptx, const std::string& arch);

// Reads ptxas --verbose output (exposed for tests).
std::map<std::string, runtime::cuda::KernelResources> ParsePtxasLog(const std::string& log);

}  // namespace tessel::codegen::cuda
