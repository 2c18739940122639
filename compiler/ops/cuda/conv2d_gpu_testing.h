#pragma once

#include <cstdint>
#include <string>

#include "compiler/ir/stmt.h"
#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"

// What the GPU convolution templates' tests share: the registered template by name and the
// check options of each GPU target.
namespace tessel::ops::cuda::testing {

// The registered template (a test failure, then a crash, when it is missing).
const Template& Get(const std::string& name);

// OpenCL on this machine (PoCL). Tolerances for sums of up to ic * kh * kw products of values
// in [-1, 1) added in another order than libtorch's.
ops::testing::CheckOptions OnOpencl();

// "cuda -arch=sm_90": NVRTC and ptxas (the kernel's resources checked against the GPU facts);
// run only where a CUDA device is present.
ops::testing::CheckOptions OnCuda();

// Bytes of the "shared" buffers a lowered function allocates (each of constant size).
int64_t SharedBytesOf(const ir::PrimFunc& func);

// Bytes of shared memory the program of template t for `args` and `config` allocates on
// `target`, from its lowered function.
absl::StatusOr<int64_t> ProgramSharedBytes(const Template& t, const OpArgs& args,
                                           const search::Config& config,
                                           const target::Target& target);

}  // namespace tessel::ops::cuda::testing
