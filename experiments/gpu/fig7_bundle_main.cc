// fig7_bundle OUT_DIR [ARCH]: the paper's Fig. 7 (square matmul with and without cooperative
// shared-memory fetching) as a CUDA measurement bundle (compiler/runtime/cuda/bundle.h) for GPUs
// of ARCH (default sm_90; FMA contraction on, -fast-math-contract): for n = 1024 and 2048 and
// four tilings (64 or 128 square tiles of C per block of 16 x 16 threads, k in steps of 8 or
// 16), both kernels of compiler/ops/cuda/matmul_kernel.h, named
// "<coop|nocoop>_t<tile>_s<step>_n<n>", compiled with NVRTC and assembled here, checked against
// the GPU limits, saved with a bundle.json the GPU machine's cuda_runner executes. Prints each
// kernel's resources.
// experiments/gpu/README.md gives the whole path.
#include <cstdio>
#include <string>

#include "compiler/codegen/cuda/build_cuda.h"
#include "compiler/ops/cuda/matmul_kernel.h"
#include "compiler/runtime/cuda/bundle.h"
#include "compiler/target/gpu_facts.h"
#include "compiler/target/target.h"

namespace tessel::experiments {
namespace {

absl::Status Fig7Bundle(const std::string& out_dir, const std::string& arch) {
  // FMA contraction on, as nvcc and cuBLAS have it.
  absl::StatusOr<target::Target> target =
      target::Target::Parse("cuda -arch=" + arch + " -fast-math-contract");
  if (!target.ok()) return target.status();
  const std::optional<target::GpuFacts> gpu = target::DescribeGpu(*target);
  runtime::cuda::Bundle bundle;
  bundle.target = target->ToString();
  // Kernels of a millisecond: enough calls per repeat to fill 20 ms, ten repeats.
  bundle.timer = {/*number=*/1, /*repeat=*/10, /*min_repeat_ms=*/20, /*warmup=*/3};
  std::vector<runtime::Module> modules;
  std::vector<ops::cuda::MatmulKernelOptions> kernels;
  for (int n : {1024, 2048}) {
    for (int tile : {64, 128}) {
      for (int step : {8, 16}) {
        for (bool cooperative : {true, false}) {
          kernels.push_back({n, cooperative, tile, /*threads=*/16, step});
        }
      }
    }
  }
  std::printf("%-22s %9s %12s %8s\n", "kernel", "registers", "shared bytes", "spills");
  for (const ops::cuda::MatmulKernelOptions& k : kernels) {
    const std::string name =
        absl::StrCat(k.cooperative ? "coop" : "nocoop", "_t", k.tile, "_s", k.step, "_n", k.n);
    absl::StatusOr<ir::PrimFunc> func = ops::cuda::MatmulKernel(k, "matmul_" + name);
    if (!func.ok()) return func.status();
    absl::StatusOr<codegen::cuda::CudaBuild> built =
        codegen::cuda::BuildCuda({*func}, *target, *gpu);
    if (!built.ok()) return built.status();
    const runtime::cuda::KernelResources& r = built->data.kernels[0].resources;
    std::printf("%-22s %9d %12lld %8lld\n", name.c_str(), r.registers,
                static_cast<long long>(r.shared_bytes),
                static_cast<long long>(r.spill_store_bytes + r.spill_load_bytes));
    const int64_t n = k.n;
    bundle.entries.push_back({.name = name,
                              .module = name + ".cubin",
                              .function = "matmul_" + name,
                              .tensors = {{n, n}, {n, n}, {n, n}},
                              .scalars = {},
                              .flops = 2.0 * n * n * n,
                              .reference = "matmul"});
    modules.push_back(built->module);
  }
  return runtime::cuda::WriteBundle(out_dir, bundle, modules);
}

}  // namespace
}  // namespace tessel::experiments

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: fig7_bundle OUT_DIR [ARCH, default sm_90]\n");
    return 2;
  }
  absl::Status s = tessel::experiments::Fig7Bundle(argv[1], argc == 3 ? argv[2] : "sm_90");
  if (!s.ok()) {
    std::fprintf(stderr, "fig7_bundle: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::printf("fig7_bundle: wrote %s/bundle.json\n", argv[1]);
  return 0;
}
