#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "compiler/target/target.h"

// A GPU target's limits, from the target alone. A library of its own, without the CPU facts (whose
// host part needs LLVM), so that GPU kernels are built and checked in programs that do not link
// LLVM (the GPU run tests travel to machines without it).
namespace tessel::target {

// A GPU's limits per thread block (CUDA) or work-group (OpenCL).
struct GpuFacts {
  int max_threads_per_block = 1024;
  int warp_size = 32;  // threads that execute in lockstep (1: no warps, as on Mali)
  int64_t shared_memory_per_block = 48 * 1024;  // bytes, without opting in to more
  int registers_per_thread = 255;               // 32-bit registers
  int registers_per_block = 64 * 1024;
  // Per dimension (x, y, z): the largest threadIdx extent, and the largest blockIdx extent
  // (OpenCL: work-groups per dimension, which it does not limit below 2^63).
  std::array<int64_t, 3> max_block_extents = {1024, 1024, 64};
  std::array<int64_t, 3> max_grid_extents = {2147483647, 65535, 65535};

  // "1024 threads per block, warp 32, 48 KiB shared per block, 255 registers per thread".
  std::string ToString() const;
};

// The GPU facts of a target, nullopt for a kind that is not a GPU:
//  - cuda: the -arch's compute capability's (sm_50 and later share the defaults above);
//  - opencl: 256 work-items per group (and per dimension), 32 KiB of local memory, no warps
//    (warp_size 1); with -device=mali 64 registers per work-item.
std::optional<GpuFacts> DescribeGpu(const Target& target);

}  // namespace tessel::target
