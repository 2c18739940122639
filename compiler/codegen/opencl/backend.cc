// The OpenCL backend of Build (compiler/codegen/build.h), registered for target kind `opencl`
// (`opencl`, `opencl -device=mali`): checked against the target's GPU facts (DescribeGpu).
#include "compiler/codegen/build.h"
#include "compiler/codegen/opencl/build_opencl.h"
#include "compiler/support/check.h"
#include "compiler/target/gpu_facts.h"

namespace tessel::codegen::opencl {
namespace {

absl::StatusOr<runtime::Module> BuildOpenclBackend(const std::vector<ir::PrimFunc>& funcs,
                                                   const target::Target& target,
                                                   const BuildOptions& options) {
  const std::optional<target::GpuFacts> gpu = target::DescribeGpu(target);
  TESSEL_CHECK(gpu.has_value()) << "target '" << target.ToString() << "' has no GPU facts";
  absl::StatusOr<OpenclBuild> build = BuildOpencl(funcs, target, *gpu, options);
  if (!build.ok()) return build.status();
  return build->module;
}

[[maybe_unused]] const bool kRegistered = RegisterBackend("opencl", BuildOpenclBackend);

}  // namespace
}  // namespace tessel::codegen::opencl
