// reduce_sum.gpu ... reduce_log_sum_exp.gpu: the reductions of nn/reduce.h on GPUs. The program
// reads x as [outer, k, inner] (the reduced axes merged in the middle; [outer, k] when inner is
// 1; prepare and finish reshape, free for a graph compiler) and writes [outer, inner]: one thread
// per output element, in a 1-D grid (injective_schedule.h's element schedule, per_thread
// elements each), accumulating over k in registers (log_sum_exp's maximum first, in a register
// of its own). Reads along k are strided by inner; neighbouring threads read neighbouring inner
// positions, so an inner reduction coalesces.
//
// Knobs: threads, per_thread (DefineElementKnobs, no vectors). Fallback: DefaultThreadsPerBlock
// threads, one element each.
// Flops: one per reduced element (two for log_sum_exp).
#include <absl/strings/str_cat.h>

#include "compiler/ops/cuda/injective_schedule.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

absl::StatusOr<search::ConfigSpace> Space(const std::string& name, const OpArgs& args,
                                          const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const nn::ReduceArgs a, nn::ReadReduceArgs(ArgReader(name, args)));
  TESSEL_ASSIGN_OR_RETURN(const target::GpuFacts gpu, RequireGpu(name, facts));
  search::ConfigSpace space;
  DefineElementKnobs(space, a.outer * a.inner, gpu, /*vector_ok=*/false);
  return space;
}

search::Config Fallback(const std::string& name, const search::ConfigSpace& space,
                        const target::TargetFacts& facts) {
  const target::GpuFacts gpu = *RequireGpu(name, facts);
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs", ElementKnobs({.threads = DefaultThreadsPerBlock(gpu)})}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

absl::StatusOr<OpProgram> Instantiate(const std::string& name, const nn::ReduceOp& op,
                                      const search::Config& config, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(const nn::ReduceArgs a, nn::ReadReduceArgs(ArgReader(name, args)));
  const std::vector<int64_t> view = a.view();
  te::Tensor x = te::placeholder(nn::ShapeExprs(view), ir::kFloat32, "x");
  const nn::ReduceTensors t = nn::ReduceRows(op, x);
  OpProgram prog;
  schedule::Schedule& s = prog.schedule;
  s = schedule::create_schedule({t.output.op()});
  TESSEL_ASSIGN_OR_RETURN(const ir::IterVar element,
                          ScheduleElements(s, t.output, ElementTilingOf(config)));
  for (const te::Tensor& stage : {t.max, t.combined}) {
    if (!stage.defined()) continue;
    TESSEL_RETURN_IF_ERROR(s[stage].set_scope("local"));
    TESSEL_RETURN_IF_ERROR(s[stage].compute_at(s[t.output], element));
  }
  prog.args = {x, t.output};
  prog.flops = (op.shifted ? 2.0 : 1.0) * static_cast<double>(a.outer * a.k * a.inner);
  prog.logical_inputs = {{"x", a.shape, {kDLFloat, 32, 1}, op.low, op.high}};
  prog.logical_outputs = {{"out", a.out_shape}};
  prog.prepare = injective::ReshapeArrays({view});
  prog.finish = injective::ReshapeArrays({a.out_shape});
  return prog;
}

Template Make(const nn::ReduceOp& op) {
  const std::string name = absl::StrCat(op.name, ".gpu");
  return Template{
      name,
      op.name,
      absl::StrCat(op.name, " over contiguous axes on GPUs: a thread per output element"),
      [name](const OpArgs& args, const target::TargetFacts& facts) {
        return Space(name, args, facts);
      },
      [name](const search::ConfigSpace& space, const OpArgs&, const target::TargetFacts& facts) {
        return Fallback(name, space, facts);
      },
      [name, &op](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, op, config, args);
      }};
}

bool RegisterAll() {
  for (const nn::ReduceOp& op : nn::ReduceOps()) RegisterTemplate("gpu", Make(op));
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace tessel::ops::cuda
