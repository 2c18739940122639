#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/codegen/c_source/dialect.h"
#include "compiler/codegen/gpu/kernel_launch.h"
#include "compiler/codegen/gpu/signature.h"
#include "compiler/ir/stmt.h"

// Lowered functions to the source of one translation unit in a C-like dialect (dialect.h): the
// dialect's preamble, then one kernel per PrimFunc, named after it, in order.
//
// Takes PrimFuncs after transforms::Lower whose statements all sit inside thread-bound loops
// (gpu/kernel_launch.h says exactly what is accepted). What every dialect prints the same way:
// - parameters: the argument slots (gpu/signature.h) in order: tensors as pointers to element 0
//   (const when the kernel never stores to them, restrict), scalars in their type;
// - a loop bound to blockIdx/threadIdx as its variable set from the dialect's hardware index;
// - "shared" allocations as the dialect's block-shared arrays and "local" ones as per-thread
//   arrays (constant sizes, 16-byte aligned); other scopes are refused;
// - storage_sync as the dialect's barrier;
// - vectors of 2 or 4 lanes (any other width is refused): contiguous loads and stores of 32-bit
//   elements whose first index is provably a multiple of the lanes as one float2/float4 (int2,
//   int4, ...) access, everything else lane by lane;
// - the math intrinsics as the dialect's functions, sigmoid as 1 / (1 + exp(-x)), min/max as
//   `a < b ? a : b` (the LLVM backend's NaN behaviour), integer floordiv/floormod by the
//   preamble's helpers, Div/Mod as C's / and %; integer types narrower than 32 bits are cast back
//   after every operation (the IR wraps).
// Not supported (errors naming the function): float16, call_extern, parallel loops, global
// allocations inside a kernel.
namespace tessel::codegen::c_source {

struct GeneratedKernel {
  gpu::KernelSignature signature;
  gpu::KernelLaunch launch;
  // Bytes of "shared" memory the kernel allocates (every shared Allocate, as if all live at once).
  int64_t shared_bytes = 0;
};

struct GeneratedSource {
  std::string code;  // one translation unit: helpers, then the kernels in order
  std::vector<GeneratedKernel> kernels;
};

// Errors: InvalidArgument naming the function (two functions of one name, what the split or the
// printer refuses).
absl::StatusOr<GeneratedSource> GenerateSource(const std::vector<ir::PrimFunc>& funcs,
                                               const Dialect& dialect);

}  // namespace tessel::codegen::c_source
