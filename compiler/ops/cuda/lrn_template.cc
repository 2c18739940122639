// lrn.gpu: local response normalization across channels (nn/lrn.h) on GPUs: one thread per
// output element (injective_schedule.h's element schedule over NCHW, per_thread elements each),
// its window's sum of squares over `size` channels accumulated in a register. Neighbouring
// threads read neighbouring w positions of each channel, so the reads coalesce.
//
// Knobs: threads, per_thread (DefineElementKnobs, no vectors). Fallback: DefaultThreadsPerBlock
// threads, one element each.
// Flops: 2 * size + 3 per output element.
#include "compiler/ops/cuda/injective_schedule.h"
#include "compiler/ops/nn/lrn.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

constexpr char kName[] = "lrn.gpu";

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const nn::LrnAttrs a, nn::ReadLrnAttrs(ArgReader(kName, args)));
  TESSEL_ASSIGN_OR_RETURN(const target::GpuFacts gpu, RequireGpu(kName, facts));
  search::ConfigSpace space;
  DefineElementKnobs(space, a.n * a.c * a.h * a.w, gpu, /*vector_ok=*/false);
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs&,
                        const target::TargetFacts& facts) {
  const target::GpuFacts gpu = *RequireGpu(kName, facts);
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs", ElementKnobs({.threads = DefaultThreadsPerBlock(gpu)})}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(const nn::LrnAttrs a, nn::ReadLrnAttrs(ArgReader(kName, args)));
  const std::vector<int64_t> shape = {a.n, a.c, a.h, a.w};
  te::Tensor x = te::placeholder(nn::ShapeExprs(shape), ir::kFloat32, "x");
  const nn::LrnTensors t = nn::Lrn(x, a);
  OpProgram prog;
  schedule::Schedule& s = prog.schedule;
  s = schedule::create_schedule({t.output.op()});
  TESSEL_ASSIGN_OR_RETURN(const ir::IterVar element,
                          ScheduleElements(s, t.output, ElementTilingOf(config)));
  TESSEL_RETURN_IF_ERROR(s[t.square_sum].set_scope("local"));
  TESSEL_RETURN_IF_ERROR(s[t.square_sum].compute_at(s[t.output], element));
  prog.args = {x, t.output};
  prog.flops = static_cast<double>(2 * a.size + 3) * static_cast<double>(a.n * a.c * a.h * a.w);
  prog.logical_inputs = {{"x", shape}};
  prog.logical_outputs = {{"out", shape}};
  return prog;
}

TESSEL_REGISTER_TEMPLATE("gpu", (Template{kName, "lrn",
                                          "local response normalization across channels on GPUs: "
                                          "a thread per output element",
                                          Space, Fallback, Instantiate}));

}  // namespace
}  // namespace tessel::ops::cuda
