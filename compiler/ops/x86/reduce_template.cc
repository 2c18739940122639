// The reductions of nn/reduce.h ("reduce_sum.x86", ...). The program reads x as [outer, K, inner]
// (the reduced axes merged in the middle; prepare and finish reshape, free for a graph compiler)
// and computes one output row (one outer index) at a time, rows in parallel:
//  - inner == 1 (the reduced axes are the last ones): the row's combination is a lane reduction
//    (lane_reduce.h, `lanes` vector chains); log_sum_exp reduces the maximum first the same way.
//  - inner > 1: the combination is a vector along inner accumulated over the K positions (the
//    row streamed contiguously), vectors of `vec`.
// Knobs: row_reduction_knobs.h.
// Flops: one per element of x (two for the shifted log_sum_exp).
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/host_reshape.h"
#include "compiler/ops/x86/lane_reduce.h"
#include "compiler/ops/x86/row_reduction_knobs.h"
#include "compiler/ops/x86/vectorize_last.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using ir::Expr;
using ir::Var;

absl::StatusOr<search::ConfigSpace> Space(const std::string& name, const OpArgs& args,
                                          const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const nn::ReduceArgs a, nn::ReadReduceArgs(ArgReader(name, args)));
  search::ConfigSpace space;
  DefineRowReductionKnobs(space, a.inner, facts);
  return space;
}

// A reduction streams its input: threads pay off from about a hundred thousand elements.
search::Config Fallback(const std::string& name, const search::ConfigSpace& space,
                        const OpArgs& args, const target::TargetFacts& facts) {
  const nn::ReduceArgs a = *nn::ReadReduceArgs(ArgReader(name, args));
  return RowReductionFallback(space, a.outer, a.k, a.inner, 131072, facts);
}

// inner == 1: x [outer, K]; lane reductions, the output [outer].
absl::StatusOr<te::Tensor> LastAxes(schedule::Schedule& s, const nn::ReduceOp& op,
                                    const te::Tensor& x, const nn::ReduceArgs& a,
                                    const search::Config& config) {
  const int64_t lanes = config.knob("lanes");
  std::vector<LaneReduction> reductions;
  te::Tensor max;
  if (op.shifted) {
    reductions.push_back(LaneReduce(
        {a.outer}, a.k, lanes, LaneReducer::kMax,
        [&](const std::vector<Expr>& row, const Expr& k) { return x(row[0], k); },
        absl::StrCat(op.name, "_max")));
    max = reductions.back().result;
  }
  reductions.push_back(LaneReduce(
      {a.outer}, a.k, lanes, op.combine,
      [&](const std::vector<Expr>& row, const Expr& k) {
        return op.Before(x(row[0], k), op.shifted ? max(row[0]) : Expr());
      },
      absl::StrCat(op.name, "_combined")));
  const te::Tensor combined = reductions.back().result;
  te::Tensor out = te::compute(
      nn::ShapeExprs({a.outer}),
      [&](Var i) { return op.After(combined(i), op.shifted ? max(i) : Expr(), a.k); }, op.name);
  s = schedule::create_schedule({out.op()});
  const ir::IterVar row = nn::Axes(out)[0];
  if (config.knob("parallel") != 0) TESSEL_RETURN_IF_ERROR(s[out].parallel(row));
  for (const LaneReduction& r : reductions) {
    TESSEL_RETURN_IF_ERROR(s[r.result].compute_at(s[out], row));
    TESSEL_RETURN_IF_ERROR(ScheduleLaneReduction(s, r));
  }
  return out;
}

// inner > 1: x [outer, K, inner]; vectors along inner, the output [outer, inner].
absl::StatusOr<te::Tensor> InnerAxes(schedule::Schedule& s, const nn::ReduceOp& op,
                                     const te::Tensor& x, const nn::ReduceArgs& a,
                                     const search::Config& config) {
  const int64_t vec = config.knob("vec");
  const nn::ReduceTensors t = nn::ReduceRows(op, x);
  s = schedule::create_schedule({t.output.op()});
  const ir::IterVar row = nn::Axes(t.output)[0];
  if (config.knob("parallel") != 0) TESSEL_RETURN_IF_ERROR(s[t.output].parallel(row));
  TESSEL_RETURN_IF_ERROR(VectorizeLast(s, t.output, a.inner, vec).status());
  for (const te::Tensor& stage : {t.max, t.combined}) {
    if (!stage.defined()) continue;
    TESSEL_RETURN_IF_ERROR(s[stage].compute_at(s[t.output], row));
    // The reduction streams the row: k outside the vector of inner positions.
    TESSEL_ASSIGN_OR_RETURN(ir::IterVar outer, VectorizeLast(s, stage, a.inner, vec));
    const ir::IterVar& k = stage.op().as<te::ComputeOpNode>()->reduce_axis[0];
    TESSEL_RETURN_IF_ERROR(s[stage].reorder({k, outer}));
  }
  return t.output;
}

absl::StatusOr<OpProgram> Instantiate(const std::string& name, const nn::ReduceOp& op,
                                      const search::Config& config, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(const nn::ReduceArgs a, nn::ReadReduceArgs(ArgReader(name, args)));
  const std::vector<int64_t> view = a.view();
  te::Tensor x = te::placeholder(nn::ShapeExprs(view), ir::kFloat32, "x");
  OpProgram prog;
  TESSEL_ASSIGN_OR_RETURN(te::Tensor out, a.inner == 1
                                              ? LastAxes(prog.schedule, op, x, a, config)
                                              : InnerAxes(prog.schedule, op, x, a, config));
  prog.args = {x, out};
  prog.flops = (op.shifted ? 2.0 : 1.0) * static_cast<double>(a.outer * a.k * a.inner);
  prog.logical_inputs = {{"x", a.shape, {kDLFloat, 32, 1}, op.low, op.high}};
  prog.logical_outputs = {{"out", a.out_shape}};
  prog.prepare = ReshapeArrays({view});
  prog.finish = ReshapeArrays({a.out_shape});
  return prog;
}

Template Make(const nn::ReduceOp& op) {
  const std::string name = absl::StrCat(op.name, ".x86");
  return Template{
      name,
      op.name,
      absl::StrCat(op.name, " over contiguous axes: rows in parallel, vectorized accumulation"),
      [name](const OpArgs& args, const target::TargetFacts& facts) {
        return Space(name, args, facts);
      },
      [name](const search::ConfigSpace& space, const OpArgs& args,
             const target::TargetFacts& facts) { return Fallback(name, space, args, facts); },
      [name, &op](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, op, config, args);
      }};
}

bool RegisterAll() {
  for (const nn::ReduceOp& op : nn::ReduceOps()) RegisterTemplate("cpu", Make(op));
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace tessel::ops::x86
