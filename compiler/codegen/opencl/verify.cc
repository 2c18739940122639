#include "compiler/codegen/opencl/verify.h"

#include <absl/strings/str_cat.h>

#include "compiler/codegen/gpu/launch_limits.h"

namespace tessel::codegen::opencl {

absl::Status CheckWorkGroupLimits(const c_source::GeneratedKernel& kernel,
                                  const target::GpuFacts& gpu, const std::string& where) {
  const std::string& name = kernel.signature.signature.name;
  const gpu::KernelLaunch& launch = kernel.launch;
  if (std::optional<int64_t> items = launch.threads_per_block();
      items && *items > gpu.max_threads_per_block) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", name, "': ", *items, " work-items per work-group (threadIdx extents ",
        *launch.block_const[0], " x ", *launch.block_const[1], " x ", *launch.block_const[2],
        ") exceed the limit of ", gpu.max_threads_per_block, " work-items per work-group for ",
        where));
  }
  if (kernel.shared_bytes > gpu.shared_memory_per_block) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", name, "': ", kernel.shared_bytes,
        " bytes of local memory per work-group (its \"shared\" buffers) exceed the limit of ",
        gpu.shared_memory_per_block, " bytes for ", where));
  }
  if (std::optional<std::string> past = gpu::ExtentPastLimit(launch, gpu)) {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", name, "': ", *past,
                                                   " (work-group extents: threadIdx, work-group "
                                                   "counts: blockIdx) for ",
                                                   where));
  }
  return absl::OkStatus();
}

}  // namespace tessel::codegen::opencl
