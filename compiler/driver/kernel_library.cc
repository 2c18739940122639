#include "compiler/driver/kernel_library.h"

#include "compiler/runtime/cuda/cuda_module.h"
#include "compiler/runtime/opencl/opencl_module.h"
#include "compiler/runtime/vdla/vdla_module.h"

namespace tessel::driver {

std::string KernelLibraryFile(const target::Target& target) {
  if (target.kind() == "cuda") return "kernels.cubin";
  if (target.kind() == "opencl") return "kernels.cl";
  if (target.kind() == "vdla") return "kernels.vdla.json";
  return "kernels.so";
}

absl::StatusOr<runtime::Module> LoadKernelLibrary(const target::Target& target,
                                                  const std::string& path) {
  if (target.kind() == "cuda") return runtime::cuda::LoadCudaModule(path);
  if (target.kind() == "opencl") return runtime::opencl::LoadOpenclModule(path);
  if (target.kind() == "vdla") return runtime::vdla::LoadVdlaModule(path);
  return runtime::Module::Load(path);
}

}  // namespace tessel::driver
