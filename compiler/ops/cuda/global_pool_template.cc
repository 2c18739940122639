// global_avg_pool2d.gpu and global_max_pool2d.gpu: the mean or maximum of each (n, c) plane of
// NCHW data, as [N, C, 1, 1]. The program reads the data as rows [N * C, H * W] and writes
// [N * C] (prepare and finish reshape; free for a graph compiler), in one of two ways:
//  - block_per_row = 1: one block per row, its threads reducing the row together through shared
//    memory (pool_row_reduce.h: strided partials, then a tree), for long rows;
//  - block_per_row = 0: one thread per row (injective_schedule.h's element schedule over the
//    rows), accumulating in a register, for short rows.
// The mean scales each element by 1 / (H * W) as it is summed.
//
// Knobs: threads (per block, powers of two up to the GPU's maximum), block_per_row (0, 1).
// Fallback: a block per row for rows of 32 elements or more, with threads the largest power of
// two up to half the row, between 32 and 256 (or the GPU's maximum); a thread per row with 256
// threads per block otherwise.
// Flops: H * W per output element.
//
// A fused tail (instantiate_with_tail; logical index [n, c, 0, 0]) is applied to each row's
// value where it is stored.
#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ops/cuda/injective_schedule.h"
#include "compiler/ops/cuda/pool_row_reduce.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::cuda {
namespace {

using schedule::Stage;

struct Plane {
  int64_t n, c, h, w;
};

absl::StatusOr<Plane> ReadPlane(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  Plane p;
  TESSEL_ASSIGN_OR_RETURN(p.n, reader.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(p.c, reader.Extent("c"));
  TESSEL_ASSIGN_OR_RETURN(p.h, reader.Extent("h"));
  TESSEL_ASSIGN_OR_RETURN(p.w, reader.Extent("w"));
  if (p.h * p.w >= (int64_t{1} << 31) || p.n * p.c * p.h * p.w >= (int64_t{1} << 31)) {
    return reader.Error("the data ('n' x 'c' x 'h' x 'w') must have fewer than 2^31 elements");
  }
  return p;
}

absl::StatusOr<search::ConfigSpace> Space(const std::string& name, const OpArgs& args,
                                          const target::TargetFacts& facts) {
  TESSEL_RETURN_IF_ERROR(ReadPlane(name, args).status());
  TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(name, facts));
  search::ConfigSpace space;
  space.define_knob("threads", ThreadsPerBlockValues(gpu));
  space.define_knob("block_per_row", {0, 1});
  return space;
}

search::Config Fallback(const std::string& name, const search::ConfigSpace& space,
                        const OpArgs& args, const target::TargetFacts& facts) {
  const Plane p = *ReadPlane(name, args);
  const target::GpuFacts gpu = *RequireGpu(name, facts);
  const int64_t k = p.h * p.w;
  const bool block = k >= 32;
  const int64_t threads = block ? BlockThreadsForRows(gpu, k) : DefaultThreadsPerBlock(gpu);
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs", {{"threads", threads}, {"block_per_row", block ? 1 : 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> Instantiate(const std::string& name, bool is_max,
                                      const search::Config& config, const OpArgs& args,
                                      const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(Plane p, ReadPlane(name, args));
  const int64_t rows = p.n * p.c, k = p.h * p.w;
  const int64_t threads = config.knob("threads");
  const std::string op = is_max ? "global_max_pool2d" : "global_avg_pool2d";
  te::Tensor data = te::placeholder(nn::ShapeExprs({rows, k}), ir::kFloat32, "data");
  const ir::Expr scale = ir::FloatImm(ir::kFloat32, 1.0 / static_cast<double>(k));
  auto element = [&](const ir::Expr& row, const ir::Expr& index) {
    ir::Expr x = data(row, index);
    return is_max ? x : x * scale;
  };
  const bool block = config.knob("block_per_row") != 0;
  BlockRowReduction shared;
  te::Tensor out;
  if (block) {
    shared = BlockReduceRows(rows, k, threads, is_max ? RowReducer::kMax : RowReducer::kSum,
                             element, op);
    out = te::compute(
        nn::ShapeExprs({rows}), [&](ir::Var r) { return shared.result(r); }, op);
  } else {
    ir::IterVar j = te::reduce_axis({0, nn::Dim(k)}, "j");
    out = te::compute(
        nn::ShapeExprs({rows}),
        [&](ir::Var r) {
          return is_max ? te::max(element(r, j), {j}) : te::sum(element(r, j), {j});
        },
        op);
  }
  te::Tensor stored = out;
  if (tail != nullptr) {
    const ir::Expr c = nn::Dim(p.c), zero = nn::Dim(0);
    stored = ApplyTail(out, *tail, [&](const std::vector<ir::Expr>& i) {
      return std::vector<ir::Expr>{ir::floordiv(i[0], c), ir::floormod(i[0], c), zero, zero};
    });
  }
  OpProgram prog;
  schedule::Schedule& s = prog.schedule;
  s = schedule::create_schedule({stored.op()});
  if (block) {
    // Each block's threads all store the row's one value (the same one): no thread index.
    if (tail != nullptr) TESSEL_RETURN_IF_ERROR(s[out].compute_inline());
    Stage ss = s[stored];
    const ir::IterVar row = nn::Axes(stored)[0];
    TESSEL_RETURN_IF_ERROR(ss.bind(row, "blockIdx.x"));
    TESSEL_RETURN_IF_ERROR(ScheduleBlockRowReduction(s, shared, ss, row));
  } else {
    // The row's accumulator lives in a register of its thread.
    te::Tensor acc = out;
    if (tail != nullptr) {
      TESSEL_RETURN_IF_ERROR(s[out].set_scope("local"));
    } else {
      TESSEL_ASSIGN_OR_RETURN(acc, s.cache_write(out, "local"));
    }
    TESSEL_ASSIGN_OR_RETURN(ir::IterVar element_loop,
                            ScheduleElements(s, stored, {.threads = threads}));
    TESSEL_RETURN_IF_ERROR(s[acc].compute_at(s[stored], element_loop));
  }
  prog.args = {data, stored};
  prog.flops = static_cast<double>(rows * k);
  prog.logical_inputs = {{"data", {p.n, p.c, p.h, p.w}}};
  prog.logical_outputs = {{"out", {p.n, p.c, 1, 1}}};
  prog.prepare = injective::ReshapeArrays({{rows, k}});
  prog.finish = injective::ReshapeArrays({{p.n, p.c, 1, 1}});
  if (tail != nullptr) AppendTailInputs(prog, *tail);
  return prog;
}

Template Make(bool is_max) {
  const std::string op = is_max ? "global_max_pool2d" : "global_avg_pool2d";
  const std::string name = op + ".gpu";
  return Template{
      name,
      op,
      absl::StrCat("global ", is_max ? "max" : "average",
                   " pooling on GPUs: a block per plane reducing through shared memory, or a "
                   "thread per plane"),
      [name](const OpArgs& args, const target::TargetFacts& facts) {
        return Space(name, args, facts);
      },
      [name](const search::ConfigSpace& space, const OpArgs& args,
             const target::TargetFacts& facts) { return Fallback(name, space, args, facts); },
      [name, is_max](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, is_max, config, args, nullptr);
      },
      [name, is_max](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
                     const OutputTail& tail) {
        return Instantiate(name, is_max, config, args, &tail);
      }};
}

TESSEL_REGISTER_TEMPLATE("gpu", Make(true));
TESSEL_REGISTER_TEMPLATE("gpu", Make(false));

}  // namespace
}  // namespace tessel::ops::cuda
