// layer_norm.x86: x read as [groups, K] (K the elements normalized together; prepare and finish
// reshape, free for a graph compiler), gamma and beta as [K]. One group (a row) at a time, rows
// in parallel:
//   mean = (sum of the row) / K                  a lane reduction (lane_reduce.h)
//   rstd = 1 / sqrt((sum of (x - mean)^2) / K + epsilon)   a second one, over the row again
//   out  = (x - mean) * rstd * gamma + beta      vectorized along the row in vectors of `vec`
// The variance is taken around the mean (two passes), not as E[x^2] - mean^2, which cancels
// badly when the mean is large against the spread (a residual stream's rows).
//
// Knobs: row_reduction_knobs.h (inner == 1: vec, lanes, parallel).
// Flops: 8 per element (the sum; the subtraction, square and sum of the variance; the
// subtraction, two multiplications and the addition of the output).
#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/layer_norm.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/host_reshape.h"
#include "compiler/ops/x86/lane_reduce.h"
#include "compiler/ops/x86/row_reduction_knobs.h"
#include "compiler/ops/x86/vectorize_last.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using ir::Expr;
using ir::Var;

constexpr char kName[] = "layer_norm.x86";

absl::StatusOr<nn::LayerNormAttrs> Read(const OpArgs& args) {
  return nn::ReadLayerNormAttrs(ArgReader(kName, args));
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_RETURN_IF_ERROR(Read(args).status());
  search::ConfigSpace space;
  DefineRowReductionKnobs(space, 1, facts);
  return space;
}

// Three light passes over a row: threads pay off from a few rows of a few thousand elements.
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::LayerNormAttrs a = *Read(args);
  return RowReductionFallback(space, a.groups, a.normalized, 1, 8192, facts);
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(const nn::LayerNormAttrs a, Read(args));
  const int64_t rows = a.groups, k = a.normalized;
  const int64_t lanes = config.knob("lanes");
  te::Tensor x = te::placeholder(nn::ShapeExprs({rows, k}), ir::kFloat32, "x");
  te::Tensor gamma = te::placeholder(nn::ShapeExprs({k}), ir::kFloat32, "gamma");
  te::Tensor beta = te::placeholder(nn::ShapeExprs({k}), ir::kFloat32, "beta");
  const Expr inverse_k = ir::MakeConst(ir::kFloat32, 1.0 / static_cast<double>(k));

  const LaneReduction sum = LaneReduce(
      {rows}, k, lanes, LaneReducer::kSum,
      [&](const std::vector<Expr>& row, const Expr& j) { return x(row[0], j); }, "row_sum");
  te::Tensor mean = te::compute(
      nn::ShapeExprs({rows}), [&](Var i) { return sum.result(i) * inverse_k; }, "mean");
  const LaneReduction squares = LaneReduce(
      {rows}, k, lanes, LaneReducer::kSum,
      [&](const std::vector<Expr>& row, const Expr& j) {
        const Expr d = x(row[0], j) - mean(row[0]);
        return d * d;
      },
      "row_squares");
  const Expr epsilon = ir::MakeConst(ir::kFloat32, a.epsilon);
  te::Tensor rstd = te::compute(
      nn::ShapeExprs({rows}),
      [&](Var i) {
        return ir::MakeConst(ir::kFloat32, 1.0) / ir::sqrt(squares.result(i) * inverse_k + epsilon);
      },
      "rstd");
  te::Tensor out = te::compute(
      nn::ShapeExprs({rows, k}),
      [&](Var i, Var j) { return (x(i, j) - mean(i)) * rstd(i) * gamma(j) + beta(j); },
      "layer_norm");

  OpProgram prog;
  schedule::Schedule& s = prog.schedule;
  s = schedule::create_schedule({out.op()});
  const ir::IterVar row = nn::Axes(out)[0];
  if (config.knob("parallel") != 0) TESSEL_RETURN_IF_ERROR(s[out].parallel(row));
  TESSEL_RETURN_IF_ERROR(VectorizeLast(s, out, k, config.knob("vec")).status());
  // Per row, in order: the sum and the mean, the squares and rstd, then the outputs. The mean
  // is read by the output too, so it lives in the output's row, not in rstd's.
  TESSEL_RETURN_IF_ERROR(s[mean].compute_at(s[out], row));
  TESSEL_RETURN_IF_ERROR(s[sum.result].compute_at(s[mean], nn::Axes(mean)[0]));
  TESSEL_RETURN_IF_ERROR(s[rstd].compute_at(s[out], row));
  TESSEL_RETURN_IF_ERROR(s[squares.result].compute_at(s[rstd], nn::Axes(rstd)[0]));
  TESSEL_RETURN_IF_ERROR(ScheduleLaneReduction(s, sum));
  TESSEL_RETURN_IF_ERROR(ScheduleLaneReduction(s, squares));

  const std::vector<int64_t> normalized = a.normalized_shape();
  prog.args = {x, gamma, beta, out};
  prog.flops = 8.0 * static_cast<double>(rows * k);
  prog.logical_inputs = {{"x", a.shape, {kDLFloat, 32, 1}, -4, 4},
                         {"gamma", normalized, {kDLFloat, 32, 1}, 0.5, 1.5},
                         {"beta", normalized, {kDLFloat, 32, 1}, -1, 1}};
  prog.logical_outputs = {{"out", a.shape}};
  prog.prepare = ReshapeArrays({{rows, k}, {k}, {k}});
  prog.finish = ReshapeArrays({a.shape});
  return prog;
}

Template Make() {
  return Template{
      kName,
      "layer_norm",
      "layer_norm over trailing axes: rows in parallel, two vectorized reductions "
      "(the mean, the variance around it) and a vectorized normalization",
      [](const OpArgs& args, const target::TargetFacts& facts) { return Space(args, facts); },
      [](const search::ConfigSpace& space, const OpArgs& args, const target::TargetFacts& facts) {
        return Fallback(space, args, facts);
      },
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(config, args);
      }};
}

TESSEL_REGISTER_TEMPLATE("cpu", Make());

}  // namespace
}  // namespace tessel::ops::x86
