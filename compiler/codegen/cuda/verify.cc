#include "compiler/codegen/cuda/verify.h"

#include <absl/strings/str_cat.h>

#include "compiler/codegen/gpu/launch_limits.h"

namespace tessel::codegen::cuda {
namespace {

absl::Status Exceeds(const GeneratedKernel& kernel, const std::string& what,
                     const std::string& limit, const std::string& where) {
  return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel.signature.signature.name,
                                                 "': ", what, " exceed", " the limit of ", limit,
                                                 " for ", where));
}

std::string BlockText(const gpu::KernelLaunch& launch) {
  return absl::StrCat("threadIdx extents ", *launch.block_const[0], " x ", *launch.block_const[1],
                      " x ", *launch.block_const[2]);
}

}  // namespace

absl::Status CheckKernelLimits(const GeneratedKernel& kernel, const target::GpuFacts& gpu,
                               const std::string& where) {
  if (std::optional<int64_t> threads = kernel.launch.threads_per_block();
      threads && *threads > gpu.max_threads_per_block) {
    return Exceeds(kernel,
                   absl::StrCat(*threads, " threads per block (", BlockText(kernel.launch), ")"),
                   absl::StrCat(gpu.max_threads_per_block, " threads per block"), where);
  }
  if (kernel.shared_bytes > gpu.shared_memory_per_block) {
    return Exceeds(kernel, absl::StrCat(kernel.shared_bytes, " bytes of shared memory per block"),
                   absl::StrCat(gpu.shared_memory_per_block, " bytes"), where);
  }
  if (std::optional<std::string> past = gpu::ExtentPastLimit(kernel.launch, gpu)) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", kernel.signature.signature.name, "': ", *past, " for ", where));
  }
  return absl::OkStatus();
}

absl::Status CheckKernelResources(const GeneratedKernel& kernel,
                                  const runtime::cuda::KernelResources& resources,
                                  const target::GpuFacts& gpu, const std::string& where) {
  if (resources.shared_bytes > gpu.shared_memory_per_block) {
    return Exceeds(kernel,
                   absl::StrCat(resources.shared_bytes, " bytes of shared memory per block"),
                   absl::StrCat(gpu.shared_memory_per_block, " bytes"), where);
  }
  if (resources.registers > gpu.registers_per_thread) {
    return Exceeds(kernel, absl::StrCat(resources.registers, " registers per thread"),
                   absl::StrCat(gpu.registers_per_thread), where);
  }
  if (std::optional<int64_t> threads = kernel.launch.threads_per_block()) {
    const int64_t per_block = *threads * resources.registers;
    if (per_block > gpu.registers_per_block) {
      return Exceeds(kernel,
                     absl::StrCat(resources.registers, " registers per thread x ", *threads,
                                  " threads = ", per_block, " registers per block"),
                     absl::StrCat(gpu.registers_per_block, " registers per block"), where);
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::codegen::cuda
