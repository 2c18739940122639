// layer_norm.gpu (nn/layer_norm.h) on GPUs. The program reads x as [groups, normalized] (the
// axes before `axis`, and those from it: one row per group) and gamma and beta as [normalized];
// prepare and finish reshape, free for a graph compiler. A row's mean is its sum / normalized,
// its variance the sum of squared deviations from that mean / normalized (two passes over the
// row, as nn::LayerNorm, rather than E[x^2] - E[x]^2, which cancels badly). Two ways:
//  - block_per_row = 0: one thread per row, rows over blocks of threads; the row's sum, mean,
//    sum of squares and variance in registers (nn::LayerNorm's stages), then the outputs along
//    the row;
//  - block_per_row = 1: one block per row, the sum and then the sum of squared deviations
//    reduced by all its threads through shared memory (pool_row_reduce.h), then the outputs
//    strided over the threads (each recomputing the mean and sqrt(var + epsilon) from the
//    reductions' results in shared memory where it uses them).
//
// Knobs: threads (per block, powers of two up to the GPU's maximum), block_per_row (0, 1).
// Fallback: a block per row for rows of 64 elements or more, with threads the largest power of
// two up to half the row, between 32 and 256 (or the GPU's maximum); otherwise a thread per row,
// 256 threads per block (or the GPU's maximum).
// Flops: 8 per element (the sum's addition; the deviation's subtraction, square and addition;
// the output's subtraction, division, scale and shift).
#include "compiler/ir/op.h"
#include "compiler/ops/cuda/injective_schedule.h"
#include "compiler/ops/cuda/pool_row_reduce.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/layer_norm.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

using ir::Expr;
using schedule::Stage;

constexpr char kName[] = "layer_norm.gpu";

absl::StatusOr<nn::LayerNormAttrs> ReadAttrs(const OpArgs& args) {
  ArgReader reader(kName, args);
  TESSEL_ASSIGN_OR_RETURN(nn::LayerNormAttrs a, nn::ReadLayerNormAttrs(reader));
  if (a.groups * a.normalized >= (int64_t{1} << 31)) {
    return reader.Error("argument 'shape' must have fewer than 2^31 elements");
  }
  return a;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_RETURN_IF_ERROR(ReadAttrs(args).status());
  TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(kName, facts));
  search::ConfigSpace space;
  space.define_knob("threads", ThreadsPerBlockValues(gpu));
  space.define_knob("block_per_row", {0, 1});
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::LayerNormAttrs a = *ReadAttrs(args);
  const target::GpuFacts gpu = *RequireGpu(kName, facts);
  const bool block = a.normalized >= 64;
  const int64_t threads =
      block ? BlockThreadsForRows(gpu, a.normalized) : DefaultThreadsPerBlock(gpu);
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs", {{"threads", threads}, {"block_per_row", block ? 1 : 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// The output of x [groups, normalized] with a block per row: the sum and the sum of squared
// deviations reduced across the threads.
absl::StatusOr<te::Tensor> BlockPerRow(schedule::Schedule& s, const te::Tensor& x,
                                       const te::Tensor& gamma, const te::Tensor& beta,
                                       const nn::LayerNormAttrs& a, int64_t threads) {
  const Expr count = ir::MakeConst(ir::kFloat32, static_cast<double>(a.normalized));
  const Expr epsilon = ir::MakeConst(ir::kFloat32, a.epsilon);
  const BlockRowReduction sum = BlockReduceRows(
      a.groups, a.normalized, threads, RowReducer::kSum,
      [&](const Expr& row, const Expr& k) { return x(row, k); }, "row_sum");
  auto mean = [&](const Expr& row) { return sum.result(row) / count; };
  const BlockRowReduction squares = BlockReduceRows(
      a.groups, a.normalized, threads, RowReducer::kSum,
      [&](const Expr& row, const Expr& k) {
        const Expr d = x(row, k) - mean(row);
        return d * d;
      },
      "row_squares");
  te::Tensor out = te::compute(
      nn::ShapeExprs({a.groups, a.normalized}),
      [&](ir::Var row, ir::Var k) {
        const Expr var = squares.result(row) / count;
        return (x(row, k) - mean(row)) / ir::sqrt(var + epsilon) * gamma(k) + beta(k);
      },
      "layer_norm");
  TESSEL_RETURN_IF_ERROR(ScheduleBlockPerRow(s, out, threads, {&sum, &squares}));
  return out;
}

// The output of x [groups, normalized] with a thread per row.
absl::StatusOr<te::Tensor> ThreadPerRow(schedule::Schedule& s, const te::Tensor& x,
                                        const te::Tensor& gamma, const te::Tensor& beta,
                                        const nn::LayerNormAttrs& a, int64_t threads) {
  TESSEL_ASSIGN_OR_RETURN(nn::LayerNormTensors t, nn::LayerNorm(x, gamma, beta, 1, a.epsilon));
  s = schedule::create_schedule({t.output.op()});
  Stage os = s[t.output];
  const auto& axes = nn::Axes(t.output);
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult split, os.split(axes[0], nn::Dim(threads)));
  TESSEL_RETURN_IF_ERROR(os.bind(split.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(os.bind(split.inner, "threadIdx.x"));
  // The row's statistics in registers of its thread, each reduction inside (the one-element
  // row loop of) the statistic reading it: the mean and the variance are computed once per
  // row, not per element (compute_at needs its parent to read the stage, so a reduction is
  // attached to its statistic rather than to the output).
  for (const auto& [stat, reduction] : {std::pair{t.mean, t.sum}, std::pair{t.var, t.squares}}) {
    TESSEL_RETURN_IF_ERROR(s[stat].set_scope("local"));
    TESSEL_RETURN_IF_ERROR(s[stat].compute_at(os, split.inner));
    TESSEL_RETURN_IF_ERROR(s[reduction].set_scope("local"));
    TESSEL_RETURN_IF_ERROR(s[reduction].compute_at(s[stat], nn::Axes(stat)[0]));
  }
  return t.output;
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(nn::LayerNormAttrs a, ReadAttrs(args));
  const int64_t threads = config.knob("threads");
  const bool block = config.knob("block_per_row") != 0;
  const std::vector<int64_t> view = {a.groups, a.normalized};
  te::Tensor x = te::placeholder(nn::ShapeExprs(view), ir::kFloat32, "x");
  te::Tensor gamma = te::placeholder(nn::ShapeExprs({a.normalized}), ir::kFloat32, "gamma");
  te::Tensor beta = te::placeholder(nn::ShapeExprs({a.normalized}), ir::kFloat32, "beta");
  OpProgram prog;
  te::Tensor out;
  if (block) {
    TESSEL_ASSIGN_OR_RETURN(out, BlockPerRow(prog.schedule, x, gamma, beta, a, threads));
  } else {
    TESSEL_ASSIGN_OR_RETURN(out, ThreadPerRow(prog.schedule, x, gamma, beta, a, threads));
  }
  prog.args = {x, gamma, beta, out};
  prog.flops = 8.0 * static_cast<double>(a.groups * a.normalized);
  const std::vector<int64_t> normalized_shape = a.normalized_shape();
  prog.logical_inputs = {{"x", a.shape, {kDLFloat, 32, 1}, -4, 4},
                         {"gamma", normalized_shape, {kDLFloat, 32, 1}, 0.5, 1.5},
                         {"beta", normalized_shape, {kDLFloat, 32, 1}, -1, 1}};
  prog.logical_outputs = {{"out", a.shape}};
  prog.prepare = injective::ReshapeArrays({view, {a.normalized}, {a.normalized}});
  prog.finish = injective::ReshapeArrays({a.shape});
  return prog;
}

TESSEL_REGISTER_TEMPLATE(
    "gpu", (Template{kName, "layer_norm",
                     "layer_norm over trailing axes on GPUs: a block per row reducing through "
                     "shared memory, or a thread per row",
                     Space, Fallback, Instantiate}));

}  // namespace
}  // namespace tessel::ops::cuda
