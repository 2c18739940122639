#pragma once

#include "compiler/codegen/c_source/dialect.h"

// OpenCL C 1.2's words for the shared C-like printer (c_source/dialect.h):
// - `__kernel void` kernels, with __attribute__((reqd_work_group_size(x, y, z))) when the
//   work-group's extents are constants; tensors as `__global [const] T* restrict`;
// - blockIdx.* as get_group_id(d), threadIdx.* as get_local_id(d);
// - storage_sync("shared") as barrier(CLK_LOCAL_MEM_FENCE); there are no warps, so "warp" and
//   assertions (OpenCL C cannot trap) are refused;
// - "shared" arrays as `__local`, declared at the kernel's outermost scope (OpenCL C allows them
//   nowhere else), "local" ones as `__private`, both __attribute__((aligned(16)));
// - float4 (int4, ...) accesses as vload4/vstore4, which take a pointer of any address space;
// - the math built-ins by their overloaded names (exp, not expf); 64-bit integers as long/ulong
//   (OpenCL C reserves `long long`); double only where the device has cl_khr_fp64;
// - floordiv/floormod/min/max as one helper function per type, named tessel_<op>_<type>
//   (OpenCL C has no templates and no overloading of user functions).
namespace tessel::codegen::opencl {

const c_source::Dialect& OpenclDialect();

}  // namespace tessel::codegen::opencl
