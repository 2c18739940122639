// softmax.gpu and log_softmax.gpu along any axis. The program reads x as [outer, K, inner] (the
// axis in the middle; prepare and finish reshape, free for a graph compiler); a row is the K
// elements at one (outer, inner) position. Two ways:
//  - block_per_row = 0: one thread per row, rows (outer, inner) fused over blocks of threads,
//    inner fastest (so that for inner > 1 a block's threads read consecutive elements); the
//    row's maximum and sum of exponentials in registers, then the outputs along the row;
//  - block_per_row = 1 (inner == 1 only: the last axis): one block per row, the maximum and
//    the sum reduced by all its threads through shared memory (pool_row_reduce.h), then the
//    outputs strided over the threads.
// softmax stores exp(x - max) / sum, log_softmax x - max - log(sum); exp(x - max) is computed
// where it is used (the sum and the output) rather than stored.
//
// Knobs: threads (per block, powers of two up to the GPU's maximum), block_per_row (0, 1; only
// 0 when inner > 1). Fallback: a block per row for a last axis of 64 or more, with threads the
// largest power of two up to half the row, between 32 and 256 (or the GPU's maximum); otherwise
// a thread per row, 256 threads per block (or the GPU's maximum).
// Flops: 5 per element (the maximum's comparison, the subtraction, exp, the sum's addition, the
// normalization), exp counted as one.
#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ops/cuda/injective_schedule.h"
#include "compiler/ops/cuda/pool_row_reduce.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/softmax.h"
#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

using ir::Expr;
using schedule::Stage;

struct Rows {
  std::vector<int64_t> shape;
  int64_t outer = 1, k = 1, inner = 1;
};

absl::StatusOr<Rows> ReadRows(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  Rows r;
  TESSEL_ASSIGN_OR_RETURN(r.shape, reader.Shape("shape"));
  const int64_t rank = static_cast<int64_t>(r.shape.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, reader.IntOr("axis", -1, -rank));
  if (axis >= rank) {
    return reader.Error(absl::StrCat("argument 'axis' must be below the rank ", rank));
  }
  if (axis < 0) axis += rank;
  for (int64_t d = 0; d < rank; ++d) {
    (d < axis ? r.outer : d == axis ? r.k : r.inner) *= r.shape[d];
  }
  if (r.outer * r.k * r.inner >= (int64_t{1} << 31)) {
    return reader.Error("argument 'shape' must have fewer than 2^31 elements");
  }
  return r;
}

absl::StatusOr<search::ConfigSpace> Space(const std::string& name, const OpArgs& args,
                                          const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(Rows r, ReadRows(name, args));
  TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(name, facts));
  search::ConfigSpace space;
  space.define_knob("threads", ThreadsPerBlockValues(gpu));
  space.define_knob("block_per_row",
                    r.inner == 1 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0});
  return space;
}

search::Config Fallback(const std::string& name, const search::ConfigSpace& space,
                        const OpArgs& args, const target::TargetFacts& facts) {
  const Rows r = *ReadRows(name, args);
  const target::GpuFacts gpu = *RequireGpu(name, facts);
  const bool block = r.inner == 1 && r.k >= 64;
  const int64_t threads = block ? BlockThreadsForRows(gpu, r.k) : DefaultThreadsPerBlock(gpu);
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs", {{"threads", threads}, {"block_per_row", block ? 1 : 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// The output of x [outer, K] with a block per row: maximum and sum reduced across the threads.
absl::StatusOr<te::Tensor> BlockPerRow(schedule::Schedule& s, const te::Tensor& x, const Rows& r,
                                       int64_t threads, bool log) {
  const BlockRowReduction max = BlockReduceRows(
      r.outer, r.k, threads, RowReducer::kMax,
      [&](const Expr& row, const Expr& k) { return x(row, k); }, "row_max");
  const BlockRowReduction sum = BlockReduceRows(
      r.outer, r.k, threads, RowReducer::kSum,
      [&](const Expr& row, const Expr& k) { return ir::exp(x(row, k) - max.result(row)); },
      "row_sum");
  te::Tensor out = te::compute(
      nn::ShapeExprs({r.outer, r.k}),
      [&](ir::Var row, ir::Var k) {
        const Expr shifted = x(row, k) - max.result(row);
        return log ? shifted - ir::log(sum.result(row)) : ir::exp(shifted) / sum.result(row);
      },
      log ? "log_softmax" : "softmax");
  TESSEL_RETURN_IF_ERROR(ScheduleBlockPerRow(s, out, threads, {&max, &sum}));
  return out;
}

// The output of x [outer, K, inner] with a thread per row (outer, inner).
absl::StatusOr<te::Tensor> ThreadPerRow(schedule::Schedule& s, const te::Tensor& x, int64_t threads,
                                        bool log) {
  TESSEL_ASSIGN_OR_RETURN(nn::SoftmaxTensors t, log ? nn::LogSoftmax(x, 1) : nn::Softmax(x, 1));
  s = schedule::create_schedule({t.output.op()});
  Stage os = s[t.output];
  const auto& axes = nn::Axes(t.output);
  TESSEL_RETURN_IF_ERROR(os.reorder({axes[0], axes[2], axes[1]}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar row, os.fuse(axes[0], axes[2]));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult split, os.split(row, nn::Dim(threads)));
  TESSEL_RETURN_IF_ERROR(os.bind(split.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(os.bind(split.inner, "threadIdx.x"));
  // The row's statistics in registers of its thread; exp(x - max) recomputed where read.
  if (t.exp.defined()) TESSEL_RETURN_IF_ERROR(s[t.exp].compute_inline());
  for (const te::Tensor& stat : {t.max, t.sum}) {
    TESSEL_RETURN_IF_ERROR(s[stat].set_scope("local"));
    TESSEL_RETURN_IF_ERROR(s[stat].compute_at(os, split.inner));
  }
  return t.output;
}

absl::StatusOr<OpProgram> Instantiate(const std::string& name, bool log,
                                      const search::Config& config, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(Rows r, ReadRows(name, args));
  const int64_t threads = config.knob("threads");
  const bool block = config.knob("block_per_row") != 0;
  std::vector<int64_t> view = {r.outer, r.k};
  if (!block) view.push_back(r.inner);
  te::Tensor x = te::placeholder(nn::ShapeExprs(view), ir::kFloat32, "x");
  OpProgram prog;
  te::Tensor out;
  if (block) {
    TESSEL_ASSIGN_OR_RETURN(out, BlockPerRow(prog.schedule, x, r, threads, log));
  } else {
    TESSEL_ASSIGN_OR_RETURN(out, ThreadPerRow(prog.schedule, x, threads, log));
  }
  prog.args = {x, out};
  prog.flops = 5.0 * static_cast<double>(r.outer * r.k * r.inner);
  prog.logical_inputs = {{"x", r.shape, {kDLFloat, 32, 1}, -4, 4}};
  prog.logical_outputs = {{"out", r.shape}};
  prog.prepare = injective::ReshapeArrays({view});
  prog.finish = injective::ReshapeArrays({r.shape});
  return prog;
}

Template Make(bool log) {
  const std::string op = log ? "log_softmax" : "softmax";
  const std::string name = op + ".gpu";
  return Template{
      name,
      op,
      absl::StrCat(op,
                   " along any axis on GPUs: a block per row reducing through shared memory, or "
                   "a thread per row"),
      [name](const OpArgs& args, const target::TargetFacts& facts) {
        return Space(name, args, facts);
      },
      [name](const search::ConfigSpace& space, const OpArgs& args,
             const target::TargetFacts& facts) { return Fallback(name, space, args, facts); },
      [name, log](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, log, config, args);
      }};
}

TESSEL_REGISTER_TEMPLATE("gpu", Make(false));
TESSEL_REGISTER_TEMPLATE("gpu", Make(true));

}  // namespace
}  // namespace tessel::ops::cuda
