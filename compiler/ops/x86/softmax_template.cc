// softmax.x86 and log_softmax.x86 along any axis. The program reads x as [outer, K, inner]
// (the axis in the middle; prepare and finish reshape, which is free for a graph compiler) and
// works on one row (one outer index) at a time, rows in parallel:
//  - inner == 1 (the last axis): the row's maximum and sum of exponentials are lane reductions
//    (lane_reduce.h, `lanes` vector chains); the exponentials (softmax) and the normalized
//    output are vectorized along the row in vectors of `vec`.
//  - inner > 1: the maximum and the sum are vectors along inner, accumulated over the K
//    positions of the axis (the row streamed contiguously); every stage is vectorized along
//    inner in vectors of `vec`.
// softmax stores exp(x - max) once and multiplies it by 1 / sum; log_softmax computes
// x - (max + log(sum)).
//
// Knobs: row_reduction_knobs.h.
// Flops: 5 per element (the maximum's comparison, the subtraction, exp, the sum's addition, the
// normalization), exp counted as one.
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/host_reshape.h"
#include "compiler/ops/x86/lane_reduce.h"
#include "compiler/ops/x86/row_reduction_knobs.h"
#include "compiler/ops/x86/vectorize_last.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::x86 {
namespace {

using nn::Axes;

using ir::Expr;
using ir::Var;
using schedule::Stage;

struct Rows {
  std::vector<int64_t> shape;
  int64_t outer = 1, k = 1, inner = 1;
};

absl::StatusOr<Rows> ReadRows(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  Rows r;
  TESSEL_ASSIGN_OR_RETURN(r.shape, reader.Ints("shape", -1));
  const int64_t rank = static_cast<int64_t>(r.shape.size());
  if (rank == 0) return reader.Error("argument 'shape' must have at least one dimension");
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, reader.IntOr("axis", -1, -rank));
  if (axis >= rank) {
    return reader.Error(absl::StrCat("argument 'axis' must be below the rank ", rank));
  }
  if (axis < 0) axis += rank;
  for (int64_t d = 0; d < rank; ++d) {
    (d < axis ? r.outer : d == axis ? r.k : r.inner) *= r.shape[d];
  }
  return r;
}

absl::StatusOr<search::ConfigSpace> Space(const std::string& name, const OpArgs& args,
                                          const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(Rows r, ReadRows(name, args));
  search::ConfigSpace space;
  DefineRowReductionKnobs(space, r.inner, facts);
  return space;
}

// exp makes softmax compute-bound: threads pay off from a few thousand elements.
search::Config Fallback(const std::string& name, const search::ConfigSpace& space,
                        const OpArgs& args, const target::TargetFacts& facts) {
  const Rows r = *ReadRows(name, args);
  return RowReductionFallback(space, r.outer, r.k, r.inner, 8192, facts);
}

absl::StatusOr<OpProgram> Instantiate(const std::string& name, bool log,
                                      const search::Config& config, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(Rows r, ReadRows(name, args));
  const int64_t vec = config.knob("vec");
  const bool last_axis = r.inner == 1;
  // x as [outer, K] (last axis) or [outer, K, inner].
  std::vector<int64_t> view = {r.outer, r.k};
  if (!last_axis) view.push_back(r.inner);
  te::Tensor x = te::placeholder(nn::ShapeExprs(view), ir::kFloat32, "x");
  auto at = [&](const std::vector<Var>& i, const Expr& k) {
    return last_axis ? x(i[0], k) : x(i[0], k, i[2]);
  };
  // Per-row statistics are indexed (row) or (row, inner).
  std::vector<int64_t> stat_shape = {r.outer};
  if (!last_axis) stat_shape.push_back(r.inner);
  auto stat_of = [&](const te::Tensor& t, const std::vector<Var>& i) {
    return last_axis ? t(i[0]) : t(i[0], i[2]);
  };

  std::vector<LaneReduction> lane_reductions;
  te::Tensor maxima, sums;
  if (last_axis) {
    lane_reductions.push_back(LaneReduce(
        {r.outer}, r.k, config.knob("lanes"), LaneReducer::kMax,
        [&](const std::vector<Expr>& row, const Expr& k) { return x(row[0], k); }, "row_max"));
    maxima = lane_reductions.back().result;
  } else {
    ir::IterVar k = te::reduce_axis({0, ir::IntImm(ir::kInt32, r.k)}, "k");
    maxima = te::compute(
        nn::ShapeExprs(stat_shape), [&](Var i, Var j) { return te::max(x(i, k, j), {k}); },
        "row_max");
  }
  te::Tensor exps;  // softmax only: exp(x - max), stored
  auto shifted_exp = [&](const std::vector<Var>& i, const Expr& k) {
    return ir::exp(at(i, k) - (last_axis ? maxima(i[0]) : maxima(i[0], i[2])));
  };
  if (!log) {
    exps = te::compute(
        nn::ShapeExprs(view), [&](const std::vector<Var>& i) { return shifted_exp(i, i[1]); },
        "exp");
  }
  if (last_axis) {
    lane_reductions.push_back(LaneReduce(
        {r.outer}, r.k, config.knob("lanes"), LaneReducer::kSum,
        [&](const std::vector<Expr>& row, const Expr& k) {
          return log ? ir::exp(x(row[0], k) - maxima(row[0])) : exps(row[0], k);
        },
        "row_sum"));
    sums = lane_reductions.back().result;
  } else {
    ir::IterVar k = te::reduce_axis({0, ir::IntImm(ir::kInt32, r.k)}, "k");
    sums = te::compute(
        nn::ShapeExprs(stat_shape),
        [&](Var i, Var j) {
          return te::sum(log ? ir::exp(x(i, k, j) - maxima(i, j)) : exps(i, k, j), {k});
        },
        "row_sum");
  }
  // softmax: 1 / sum; log_softmax: max + log(sum).
  te::Tensor norm = te::compute(
      nn::ShapeExprs(stat_shape),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx(i.begin(), i.end());
        return log ? maxima(idx) + ir::log(sums(idx))
                   : ir::MakeConst(ir::kFloat32, 1.0) / sums(idx);
      },
      log ? "log_sum" : "inverse_sum");
  te::Tensor out = te::compute(
      nn::ShapeExprs(view),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx(i.begin(), i.end());
        return log ? x(idx) - stat_of(norm, i) : exps(idx) * stat_of(norm, i);
      },
      log ? "log_softmax" : "softmax");

  OpProgram prog;
  schedule::Schedule& s = prog.schedule;
  s = schedule::create_schedule({out.op()});
  const ir::IterVar row = Axes(out)[0];
  if (config.knob("parallel") != 0) TESSEL_RETURN_IF_ERROR(s[out].parallel(row));
  const int64_t vector_extent = last_axis ? r.k : r.inner;
  TESSEL_RETURN_IF_ERROR(VectorizeLast(s, out, vector_extent, vec).status());
  // Every other stage once per row. A stage is placed in a loop of a stage that reads it:
  // norm and exp in the row of the output; sum in norm's row; max in the row of its first
  // reader that is not inlined (exp for softmax, norm for log_softmax).
  TESSEL_RETURN_IF_ERROR(s[norm].compute_at(s[out], row));
  TESSEL_RETURN_IF_ERROR(s[sums].compute_at(s[norm], Axes(norm)[0]));
  if (exps.defined()) {
    TESSEL_RETURN_IF_ERROR(s[exps].compute_at(s[out], row));
    TESSEL_RETURN_IF_ERROR(s[maxima].compute_at(s[exps], Axes(exps)[0]));
    TESSEL_RETURN_IF_ERROR(VectorizeLast(s, exps, vector_extent, vec).status());
  } else {
    TESSEL_RETURN_IF_ERROR(s[maxima].compute_at(s[norm], Axes(norm)[0]));
  }
  if (last_axis) {
    for (const LaneReduction& lr : lane_reductions) {
      TESSEL_RETURN_IF_ERROR(ScheduleLaneReduction(s, lr));
    }
  } else {
    // The reductions stream the row: k outside the vector of inner positions.
    for (const te::Tensor& t : {maxima, sums}) {
      TESSEL_ASSIGN_OR_RETURN(ir::IterVar outer, VectorizeLast(s, t, r.inner, vec));
      const ir::IterVar& k = t.op().as<te::ComputeOpNode>()->reduce_axis[0];
      TESSEL_RETURN_IF_ERROR(s[t].reorder({k, outer}));
    }
    TESSEL_RETURN_IF_ERROR(VectorizeLast(s, norm, r.inner, vec).status());
  }

  prog.args = {x, out};
  prog.flops = 5.0 * static_cast<double>(r.outer * r.k * r.inner);
  prog.logical_inputs = {{"x", r.shape, {kDLFloat, 32, 1}, -4, 4}};
  prog.logical_outputs = {{"out", r.shape}};
  prog.prepare = ReshapeArrays({view});
  prog.finish = ReshapeArrays({r.shape});
  return prog;
}

Template Make(bool log) {
  const std::string op = log ? "log_softmax" : "softmax";
  const std::string name = op + ".x86";
  return Template{
      name,
      op,
      absl::StrCat(op,
                   " along any axis: rows in parallel, vectorized reductions and normalization"),
      [name](const OpArgs& args, const target::TargetFacts& facts) {
        return Space(name, args, facts);
      },
      [name](const search::ConfigSpace& space, const OpArgs& args,
             const target::TargetFacts& facts) { return Fallback(name, space, args, facts); },
      [name, log](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, log, config, args);
      }};
}

TESSEL_REGISTER_TEMPLATE("cpu", Make(false));
TESSEL_REGISTER_TEMPLATE("cpu", Make(true));

}  // namespace
}  // namespace tessel::ops::x86
