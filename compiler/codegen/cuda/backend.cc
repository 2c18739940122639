// The CUDA backend of Build (compiler/codegen/build.h), registered for target kind `cuda`. Where
// this build has no CUDA toolkit it is still registered, and Build says why it cannot compile.
#include <absl/strings/str_cat.h>

#include "compiler/codegen/build.h"
#include "compiler/codegen/cuda/build_cuda.h"
#include "compiler/support/check.h"
#include "compiler/target/gpu_facts.h"

namespace tessel::codegen::cuda {
namespace {

absl::StatusOr<runtime::Module> BuildCudaBackend(const std::vector<ir::PrimFunc>& funcs,
                                                 const target::Target& target,
                                                 const BuildOptions& options) {
#ifdef TESSEL_CUDA_MISSING
  return absl::FailedPreconditionError(absl::StrCat("target '", target.ToString(),
                                                    "': this build has no CUDA toolkit: ",
                                                    TESSEL_CUDA_MISSING));
#else
  const std::optional<target::GpuFacts> gpu = target::DescribeGpu(target);
  TESSEL_CHECK(gpu.has_value()) << "target '" << target.ToString() << "' has no GPU facts";
  absl::StatusOr<CudaBuild> build = BuildCuda(funcs, target, *gpu, options);
  if (!build.ok()) return build.status();
  return build->module;
#endif
}

[[maybe_unused]] const bool kRegistered = RegisterBackend("cuda", BuildCudaBackend);

}  // namespace
}  // namespace tessel::codegen::cuda
