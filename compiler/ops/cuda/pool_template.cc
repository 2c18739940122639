// max_pool2d.gpu and avg_pool2d.gpu: pooling of NCHW data (OPERATORS.md: padding, ceil_mode,
// count_include_pad), one thread per output element. The output's axes are fused and spread
// over blocks of threads by injective_schedule.h's element schedule (each thread 1, 2 or 4
// outputs, a loop whose steps touch consecutive outputs across the block); each output's window
// is reduced in a register. The padded input is never stored: each window element is a select
// of a read clamped into the input (nn::PaddedElement), inlined into the reduction.
//
// Knobs: threads (per block, powers of two up to the GPU's maximum), per_thread (1, 2, 4),
// unroll_window (0: loops, 1: the window's rows and columns unrolled).
// Fallback: 256 threads (or the GPU's maximum), one output per thread, the window unrolled when
// it has at most 25 elements.
// Flops: kh * kw per output element.
//
// A fused tail (instantiate_with_tail; logical index: the output's own) is applied to each
// output's accumulated value as it is stored.
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/cuda/injective_schedule.h"
#include "compiler/ops/nn/pool_args.h"
#include "compiler/ops/nn/pooling.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

using schedule::Stage;

constexpr int64_t kUnrollWindowMax = 25;

// The shared reading (pool_args.h), plus the GPU's: every index fits an int32.
absl::StatusOr<nn::Pool2DProblem> ReadPool(const std::string& name, const OpArgs& args,
                                           nn::PoolKind kind) {
  TESSEL_ASSIGN_OR_RETURN(nn::Pool2DProblem p, nn::ReadPool2D(name, args, kind));
  if (p.n * p.c * std::max(p.h * p.w, p.oh * p.ow) >= (int64_t{1} << 31)) {
    return ArgReader(name, args).Error("the data and the output must have fewer than 2^31 elements");
  }
  return p;
}

absl::StatusOr<search::ConfigSpace> Space(const std::string& name, nn::PoolKind kind,
                                          const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::Pool2DProblem p, ReadPool(name, args, kind));
  TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(name, facts));
  search::ConfigSpace space;
  DefineElementKnobs(space, p.n * p.c * p.oh * p.ow, gpu, /*vector_ok=*/false);
  space.define_knob("unroll_window", {0, 1});
  return space;
}

search::Config Fallback(const std::string& name, nn::PoolKind kind,
                        const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Pool2DProblem p = *ReadPool(name, args, kind);
  nlohmann::json knobs =
      ElementKnobs({.threads = DefaultThreadsPerBlock(*RequireGpu(name, facts))});
  knobs["unroll_window"] = p.attrs.kernel[0] * p.attrs.kernel[1] <= kUnrollWindowMax ? 1 : 0;
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs", knobs}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> Instantiate(const std::string& name, nn::PoolKind kind,
                                      const search::Config& config, const OpArgs& args,
                                      const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Pool2DProblem p, ReadPool(name, args, kind));
  te::Tensor data = te::placeholder(nn::ShapeExprs({p.n, p.c, p.h, p.w}), ir::kFloat32, "data");
  TESSEL_ASSIGN_OR_RETURN(te::Tensor out, nn::Pool2D(data, p.attrs));
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram prog;
  schedule::Schedule& s = prog.schedule;
  s = schedule::create_schedule({stored.op()});
  // Each output's window accumulates in a register of its thread.
  te::Tensor acc = out;
  if (tail != nullptr) {
    TESSEL_RETURN_IF_ERROR(s[out].set_scope("local"));
  } else {
    TESSEL_ASSIGN_OR_RETURN(acc, s.cache_write(out, "local"));
  }
  // The padded input, when there is one, is read through its select in the window.
  for (const te::Tensor& read : out.op()->InputTensors()) {
    if (read.op().as<te::ComputeOpNode>() != nullptr) {
      TESSEL_RETURN_IF_ERROR(s[read].compute_inline());
    }
  }
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar element_loop,
                          ScheduleElements(s, stored, ElementTilingOf(config)));
  Stage as = s[acc];
  TESSEL_RETURN_IF_ERROR(as.compute_at(s[stored], element_loop));
  if (config.knob("unroll_window") != 0) {
    for (const ir::IterVar& r : acc.op().as<te::ComputeOpNode>()->reduce_axis) {
      TESSEL_RETURN_IF_ERROR(as.unroll(r));
    }
  }
  prog.args = {data, stored};
  prog.flops = static_cast<double>(p.n * p.c * p.oh * p.ow) *
               static_cast<double>(p.attrs.kernel[0] * p.attrs.kernel[1]);
  prog.logical_inputs = {{"data", {p.n, p.c, p.h, p.w}}};
  prog.logical_outputs = {{"out", {p.n, p.c, p.oh, p.ow}}};
  if (tail != nullptr) AppendTailInputs(prog, *tail);
  return prog;
}

Template Make(nn::PoolKind kind) {
  const std::string op = kind == nn::PoolKind::kMax ? "max_pool2d" : "avg_pool2d";
  const std::string name = op + ".gpu";
  return Template{
      name,
      op,
      absl::StrCat(kind == nn::PoolKind::kMax ? "max" : "average",
                   " pooling of NCHW data on GPUs: a thread per output element, the window in "
                   "a register"),
      [name, kind](const OpArgs& args, const target::TargetFacts& facts) {
        return Space(name, kind, args, facts);
      },
      [name, kind](const search::ConfigSpace& space, const OpArgs& args,
                   const target::TargetFacts& facts) {
        return Fallback(name, kind, space, args, facts);
      },
      [name, kind](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, kind, config, args, nullptr);
      },
      [name, kind](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
                   const OutputTail& tail) {
        return Instantiate(name, kind, config, args, &tail);
      }};
}

TESSEL_REGISTER_TEMPLATE("gpu", Make(nn::PoolKind::kMax));
TESSEL_REGISTER_TEMPLATE("gpu", Make(nn::PoolKind::kAvg));

}  // namespace
}  // namespace tessel::ops::cuda
