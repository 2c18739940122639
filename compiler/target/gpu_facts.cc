#include "compiler/target/gpu_facts.h"

#include <absl/strings/str_cat.h>

#include <cstdint>

namespace tessel::target {
namespace {

// OpenCL promises no lockstep width, so no warps are assumed (warp_size 1). 32 KiB of local
// memory is OpenCL 1.2's guaranteed minimum; 256 work-items per group is Mali's (Midgard,
// Bifrost) limit, where a work-item of a full group has 64 registers.
GpuFacts OpenClFacts(const Target& target) {
  GpuFacts gpu;
  gpu.max_threads_per_block = 256;
  gpu.warp_size = 1;
  gpu.shared_memory_per_block = 32 * 1024;
  gpu.max_block_extents = {256, 256, 256};
  gpu.max_grid_extents = {INT64_MAX, INT64_MAX, INT64_MAX};
  if (target.HasKey("mali")) {
    gpu.registers_per_thread = 64;
    gpu.registers_per_block = 256 * 64;
  }
  return gpu;
}

}  // namespace

std::string GpuFacts::ToString() const {
  return absl::StrCat(max_threads_per_block, " threads per block, warp ", warp_size, ", ",
                      shared_memory_per_block / 1024, " KiB shared per block, ",
                      registers_per_thread, " registers per thread");
}

std::optional<GpuFacts> DescribeGpu(const Target& target) {
  if (target.kind() == "cuda") return GpuFacts{};
  if (target.kind() == "opencl") return OpenClFacts(target);
  return std::nullopt;
}

}  // namespace tessel::target
