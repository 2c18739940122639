#pragma once

#include "compiler/codegen/c_source/dialect.h"

// CUDA C's words for the shared C-like printer (c_source/dialect.h): `extern "C" __global__`
// kernels with __launch_bounds__ when the block is constant, `T* __restrict__` parameters,
// blockIdx/threadIdx, __syncthreads(), __shared__ arrays, float4 accesses through pointer casts
// and make_float4, expf/logf/... for float and exp/log/... for double, templated helpers.
namespace tessel::codegen::cuda {

const c_source::Dialect& CudaDialect();

}  // namespace tessel::codegen::cuda
