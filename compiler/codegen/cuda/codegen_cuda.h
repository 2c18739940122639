#pragma once

#include <absl/status/statusor.h>

#include <vector>

#include "compiler/codegen/c_source/generate.h"
#include "compiler/ir/stmt.h"

// Lowered functions to CUDA C: one `extern "C" __global__` kernel per PrimFunc, named after it,
// printed by the shared C-like printer (c_source/generate.h says what is accepted and how it
// prints) in the CUDA dialect (cuda_dialect.h says the words: __launch_bounds__(threads) when the
// block's extents are constants, `T* __restrict__` parameters, __shared__ arrays,
// __syncthreads(), float4 accesses through pointer casts, expf/logf/... for float).
namespace tessel::codegen::cuda {

using GeneratedKernel = c_source::GeneratedKernel;
using GeneratedSource = c_source::GeneratedSource;

absl::StatusOr<GeneratedSource> GenerateCuda(const std::vector<ir::PrimFunc>& funcs);

}  // namespace tessel::codegen::cuda
