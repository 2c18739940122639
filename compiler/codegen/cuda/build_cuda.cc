#include "compiler/codegen/cuda/build_cuda.h"

#include <absl/strings/str_cat.h>


#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/codegen/cuda/nvrtc_compile.h"
#include "compiler/codegen/cuda/ptxas.h"
#include "compiler/codegen/cuda/verify.h"
#include "compiler/codegen/step_timer.h"

namespace tessel::codegen::cuda {
std::string ArchOf(const target::Target& target) { return target.Option("arch").value_or("sm_90"); }

absl::StatusOr<CudaBuild> BuildCuda(const std::vector<ir::PrimFunc>& funcs,
                                    const target::Target& target, const target::GpuFacts& gpu,
                                    const BuildOptions& options) {
  const std::string arch = ArchOf(target);
  const std::string where = target.ToString();
  absl::StatusOr<GeneratedSource> source;
  {
    StepTimer timer(options, "codegen");
    source = GenerateCuda(funcs);
  }
  if (!source.ok()) return source.status();
  if (options.dump_ir != nullptr) *options.dump_ir << source->code;
  for (const GeneratedKernel& kernel : source->kernels) {
    if (absl::Status s = CheckKernelLimits(kernel, gpu, where); !s.ok()) return s;
  }
  absl::StatusOr<std::string> ptx;
  {
    StepTimer timer(options, "nvrtc");
    ptx = CompileToPtx(source->code, arch, target.HasFlag("fast-math-contract"));
  }
  if (!ptx.ok()) return ptx.status();
  if (options.dump_asm != nullptr) *options.dump_asm << *ptx;
  absl::StatusOr<Assembled> assembled;
  {
    StepTimer timer(options, "ptxas");
    assembled = Assemble(*ptx, arch);
  }
  if (!assembled.ok()) return assembled.status();

  runtime::cuda::CudaModuleData data;
  data.arch = arch;
  data.cubin = std::move(assembled->cubin);
  data.ptx = *std::move(ptx);
  data.source = std::move(source->code);
  for (const GeneratedKernel& kernel : source->kernels) {
    const std::string& name = kernel.signature.signature.name;
    auto it = assembled->resources.find(name);
    if (it == assembled->resources.end()) {
      return absl::InternalError(absl::StrCat("ptxas reported nothing about kernel '", name,
                                              "':\n", assembled->log));
    }
    if (absl::Status s = CheckKernelResources(kernel, it->second, gpu, where); !s.ok()) return s;
    runtime::cuda::CudaKernel k;
    k.signature = kernel.signature.signature;
    k.launch = kernel.launch.dims;
    k.resources = it->second;
    data.kernels.push_back(std::move(k));
  }
  CudaBuild out;
  out.data = data;
  out.module = runtime::cuda::MakeCudaModule(std::move(data));
  return out;
}

}  // namespace tessel::codegen::cuda
