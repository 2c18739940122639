#include "compiler/ops/cuda/pool_row_reduce.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/cuda/injective_schedule.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::cuda {
namespace {

ir::Expr Int(int64_t v) { return ir::IntImm(ir::kInt32, v); }

}  // namespace

ir::Expr BlockRowReduction::result(const ir::Expr& row) const { return stages.back()(row, Int(0)); }

BlockRowReduction BlockReduceRows(
    int64_t rows, int64_t k, int64_t threads, RowReducer reducer,
    const std::function<ir::Expr(const ir::Expr& row, const ir::Expr& index)>& element,
    const std::string& name) {
  TESSEL_CHECK(threads >= 1 && (threads & (threads - 1)) == 0) << threads << " threads";
  BlockRowReduction r;
  r.threads = threads;
  const bool max = reducer == RowReducer::kMax;
  ir::IterVar j = te::reduce_axis({0, Int((k + threads - 1) / threads)}, "j");
  r.stages.push_back(te::compute(
      nn::ShapeExprs({rows, threads}),
      [&](ir::Var row, ir::Var t) {
        ir::Expr index = j.var() * Int(threads) + t;
        ir::Expr value = element(row, index);
        return max ? te::max(value, {j}, index < Int(k)) : te::sum(value, {j}, index < Int(k));
      },
      name + "_partial"));
  for (int64_t half = threads / 2; half >= 1; half /= 2) {
    const te::Tensor below = r.stages.back();
    r.stages.push_back(te::compute(
        nn::ShapeExprs({rows, half}),
        [&](ir::Var row, ir::Var t) {
          ir::Expr a = below(row, t), b = below(row, t + Int(half));
          return max ? ir::max(a, b) : a + b;
        },
        absl::StrCat(name, "_level", r.stages.size())));
  }
  return r;
}

int64_t BlockThreadsForRows(const target::GpuFacts& gpu, int64_t k) {
  const std::vector<int64_t> values = ThreadsPerBlockValues(gpu);
  int64_t threads = values.front();
  for (int64_t t : values) {
    if (t <= std::max<int64_t>(k / 2, values.front()) && t <= DefaultThreadsPerBlock(gpu)) {
      threads = t;
    }
  }
  return threads;
}

absl::Status ScheduleBlockRowReduction(schedule::Schedule& s, const BlockRowReduction& r,
                                       const schedule::Stage& consumer, const ir::IterVar& block) {
  // The last level inside the consumer's block loop, each stage before inside the row loop of
  // the one reading it (an attached stage must be read by the stage it is attached to).
  schedule::Stage parent = consumer;
  ir::IterVar at = block;
  for (auto it = r.stages.rbegin(); it != r.stages.rend(); ++it) {
    schedule::Stage stage = s[*it];
    TESSEL_RETURN_IF_ERROR(stage.set_scope("shared"));
    TESSEL_RETURN_IF_ERROR(stage.compute_at(parent, at));
    // Every level takes the block's threads, those past its extent idle behind a guard, since
    // one hardware index has one extent in a kernel.
    const std::vector<ir::IterVar>& axes = nn::Axes(*it);
    TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult threads,
                            stage.split(axes[1], Int(r.threads)));
    TESSEL_RETURN_IF_ERROR(stage.bind(threads.inner, "threadIdx.x"));
    parent = stage;
    at = axes[0];
  }
  return absl::OkStatus();
}

absl::Status ScheduleBlockPerRow(schedule::Schedule& s, const te::Tensor& out, int64_t threads,
                                 const std::vector<const BlockRowReduction*>& reductions) {
  s = schedule::create_schedule({out.op()});
  schedule::Stage os = s[out];
  const std::vector<ir::IterVar>& axes = nn::Axes(out);
  TESSEL_RETURN_IF_ERROR(os.bind(axes[0], "blockIdx.x"));
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult k, os.split(axes[1], Int(threads)));
  TESSEL_RETURN_IF_ERROR(os.bind(k.inner, "threadIdx.x"));
  for (const BlockRowReduction* r : reductions) {
    TESSEL_RETURN_IF_ERROR(ScheduleBlockRowReduction(s, *r, os, axes[0]));
  }
  return absl::OkStatus();
}

}  // namespace tessel::ops::cuda
