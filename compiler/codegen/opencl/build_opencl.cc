#include "compiler/codegen/opencl/build_opencl.h"

#include <absl/strings/str_cat.h>


#include "compiler/codegen/opencl/codegen_opencl.h"
#include "compiler/codegen/opencl/verify.h"
#include "compiler/codegen/step_timer.h"
#include "compiler/runtime/opencl/program.h"

namespace tessel::codegen::opencl {
absl::StatusOr<OpenclBuild> BuildOpencl(const std::vector<ir::PrimFunc>& funcs,
                                        const target::Target& target, const target::GpuFacts& gpu,
                                        const BuildOptions& options) {
  const std::string where = target.ToString();
  absl::StatusOr<c_source::GeneratedSource> source;
  {
    StepTimer timer(options, "codegen");
    source = GenerateOpencl(funcs);
  }
  if (!source.ok()) return source.status();
  if (options.dump_ir != nullptr) *options.dump_ir << source->code;
  for (const c_source::GeneratedKernel& kernel : source->kernels) {
    if (absl::Status s = CheckWorkGroupLimits(kernel, gpu, where); !s.ok()) return s;
  }
  {
    StepTimer timer(options, "clBuildProgram");
    absl::Status built = runtime::opencl::CheckProgramBuilds(source->code);
    if (!built.ok() && built.code() != absl::StatusCode::kUnavailable) {
      return absl::Status(built.code(), absl::StrCat("target '", where, "': the OpenCL C of ",
                                                     funcs.size(), " function(s) does not build: ",
                                                     built.message()));
    }
  }
  runtime::opencl::OpenclModuleData data;
  data.source = std::move(source->code);
  for (const c_source::GeneratedKernel& kernel : source->kernels) {
    runtime::opencl::OpenclKernel k;
    k.signature = kernel.signature.signature;
    k.launch = kernel.launch.dims;
    data.kernels.push_back(std::move(k));
  }
  OpenclBuild out;
  out.data = data;
  out.module = runtime::opencl::MakeOpenclModule(std::move(data));
  return out;
}

}  // namespace tessel::codegen::opencl
