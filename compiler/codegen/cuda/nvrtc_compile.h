#pragma once

#include <absl/status/statusor.h>

#include <string>

// CUDA C to PTX with NVRTC, in process.
//
// Options: --gpu-architecture=compute_NN for arch "sm_NN", C++17, and --fmad=false unless
// `contract` (the target's -fast-math-contract): the IR's floats are strict IEEE (ir/node.h), so
// a * b + c becomes an FMA only when the target allows it.
//
// Errors: InvalidArgument with NVRTC's log when the source does not compile (a bug of the
// printer, or an arch NVRTC does not know); FailedPrecondition with the reason where this build
// has no CUDA toolkit (TESSEL_CUDA_MISSING).
namespace tessel::codegen::cuda {

absl::StatusOr<std::string> CompileToPtx(const std::string& source, const std::string& arch,
                                         bool contract);

// NVRTC's version as "13.0", or why there is none.
absl::StatusOr<std::string> NvrtcVersion();

}  // namespace tessel::codegen::cuda
