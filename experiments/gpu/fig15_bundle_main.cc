// fig15_bundle OUT_DIR [ARCH] [LOG]: the paper's Fig. 15 (every conv2d layer of Table 2, C1-C12 and
// the depthwise D1-D9, batch 1) as a CUDA measurement bundle (compiler/runtime/cuda/bundle.h) for
// GPUs of ARCH (default sm_90; FMA contraction on, -fast-math-contract, as cuDNN has it): each
// layer with the GPU strategy's template (compiler/ops/cuda/strategy.cc), its fallback config or
// the best of the tuning LOG, lowered, compiled with NVRTC, assembled and checked against the
// GPU's limits here; each entry's reference is "conv2d <args JSON>", which torch_reference.py runs
// with cuDNN (TF32 off). Prints each kernel's resources.
// experiments/gpu/README.md gives the whole path.
#include <cstdio>
#include <optional>
#include <string>

#include "compiler/codegen/cuda/build_cuda.h"
#include "compiler/ops/strategy.h"
#include "compiler/ops/template.h"
#include "compiler/runtime/cuda/bundle.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"
#include "compiler/transforms/pipeline.h"
#include "search/records/apply_history_best.h"
#include "search/task/task.h"
#include "workloads/table2.h"

namespace tessel::experiments {
namespace {

// The layer's program: the strategy's template, the log's best config where it has one.
absl::StatusOr<ops::OpProgram> LayerProgram(const ops::OpArgs& args,
                                            const target::TargetFacts& facts,
                                            const search::ApplyHistoryBest* log,
                                            std::string& template_name, bool& tuned) {
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::SelectTemplate("conv2d", args, facts));
  template_name = t->name;
  TESSEL_ASSIGN_OR_RETURN(ops::Instantiated fallback, ops::InstantiateFallback(*t, args, facts));
  const search::Task task{.template_name = t->name, .args = args, .target = facts.target};
  tuned = log != nullptr && log->Best(task.Key()).has_value();
  if (!tuned) return std::move(fallback.program);
  return t->instantiate(log->Query(task, fallback.space, fallback.config), args, facts);
}

absl::Status Fig15Bundle(const std::string& out_dir, const std::string& arch,
                         const std::string& log_path) {
  TESSEL_ASSIGN_OR_RETURN(target::Target target,
                          target::Target::Parse("cuda -arch=" + arch + " -fast-math-contract"));
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(target));
  std::optional<search::ApplyHistoryBest> log;
  if (!log_path.empty()) {
    TESSEL_ASSIGN_OR_RETURN(search::ApplyHistoryBest read,
                            search::ApplyHistoryBest::FromLogs({log_path}));
    log.emplace(std::move(read));
  }
  runtime::cuda::Bundle bundle;
  bundle.target = target.ToString();
  bundle.timer = {/*number=*/1, /*repeat=*/10, /*min_repeat_ms=*/20, /*warmup=*/3};
  std::vector<runtime::Module> modules;
  std::printf("%-5s %-24s %-8s %9s %12s %8s\n", "layer", "template", "config", "registers",
              "shared bytes", "spills");
  for (const workloads::Layer& layer : workloads::Table2()) {
    const ops::OpArgs args = workloads::Conv2dArgs(layer);
    std::string template_name;
    bool tuned = false;
    TESSEL_ASSIGN_OR_RETURN(ops::OpProgram program,
                            LayerProgram(args, facts, log ? &*log : nullptr, template_name, tuned));
    if (program.prepare || program.finish) {
      // cuda_runner draws the kernel's own inputs; the reference needs them to be the logical
      // ones.
      return absl::FailedPreconditionError(
          absl::StrCat(layer.name, ": ", template_name,
                       " transforms its inputs or outputs on the host; a bundle entry needs a "
                       "program on the logical tensors"));
    }
    const std::string function = "conv2d_" + layer.name;
    TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func,
                            transforms::Lower(program.schedule, program.args, function));
    absl::StatusOr<codegen::cuda::CudaBuild> built =
        codegen::cuda::BuildCuda({func}, target, *facts.gpu);
    if (!built.ok()) {
      return absl::Status(built.status().code(),
                          absl::StrCat(layer.name, ": ", built.status().message()));
    }
    const runtime::cuda::KernelResources& r = built->data.kernels[0].resources;
    std::printf("%-5s %-24s %-8s %9d %12lld %8lld\n", layer.name.c_str(), template_name.c_str(),
                tuned ? "tuned" : "fallback", r.registers, static_cast<long long>(r.shared_bytes),
                static_cast<long long>(r.spill_store_bytes + r.spill_load_bytes));
    std::vector<std::vector<int64_t>> tensors;
    for (const ops::TensorSpec& in : program.logical_inputs) tensors.push_back(in.shape);
    tensors.push_back(program.logical_outputs.at(0).shape);
    bundle.entries.push_back({.name = layer.name,
                              .module = layer.name + ".cubin",
                              .function = function,
                              .tensors = tensors,
                              .scalars = {},
                              .flops = program.flops,
                              .reference = "conv2d " + args.dump()});
    modules.push_back(built->module);
  }
  return runtime::cuda::WriteBundle(out_dir, bundle, modules);
}

}  // namespace
}  // namespace tessel::experiments

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: fig15_bundle OUT_DIR [ARCH, default sm_90] [TUNING_LOG]\n");
    return 2;
  }
  absl::Status s = tessel::experiments::Fig15Bundle(argv[1], argc >= 3 ? argv[2] : "sm_90",
                                                    argc == 4 ? argv[3] : "");
  if (!s.ok()) {
    std::fprintf(stderr, "fig15_bundle: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::printf("fig15_bundle: wrote %s/bundle.json\n", argv[1]);
  return 0;
}
