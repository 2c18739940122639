// rnn_cell.gpu and lstm_cell.gpu: the recurrent cells (nn/rnn.h) as one GPU kernel each, in the
// product schedule of matmul_template_schedule.h: the gate sums
//   gates[b, g, j] = sum over r of xh[b, r] * w[g * hidden + j, r]
// ([x, h] joined along the features times the joined weight [W_ih, W_hh]) in each thread's
// registers, rows the batch and columns the hidden units; the thread that sums a unit's gates
// then applies the cell's math to them (tanh, or the LSTM's i, f, g, o) and stores h' (and c':
// the LSTM's two outputs are one operation, written by the same loop).
//
// The joined weight [gates * hidden, input + hidden] and the summed biases [gates, hidden] are made
// on the host in `prepare` (constants in a network); x and h are read where they are, through a
// select on r (tiled form: into the shared [x, h] tile of each k step; split-k form, the fallback
// at batch <= 4: straight from global memory, consecutive lanes at consecutive r, as the weight's
// rows are read).
#include <cmath>

#include "compiler/ir/op.h"
#include "compiler/ops/cuda/matmul_template_schedule.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/rnn.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

using nn::Dim;

ProductDims Dims(const nn::CellArgs& a, int gates) {
  return {.rows = a.batch,
          .cols = a.hidden,
          .k = a.input + a.hidden,
          .gates = gates,
          .allow_split_k = true};
}

// gates: 1 (RNN, tanh) or 4 (LSTM).
absl::StatusOr<OpProgram> Instantiate(const char* name, int gates, const search::Config& config,
                                      const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::CellArgs a, nn::ReadCellArgs(name, args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(name, facts).status());
  const bool lstm = gates == 4;
  const ProductDims dims = Dims(a, gates);
  const ProductTiles tiles = ReadProductTiles(config);
  const int64_t k = a.input + a.hidden, rows = gates * a.hidden;
  te::Tensor x = te::placeholder({Dim(a.batch), Dim(a.input)}, ir::kFloat32, "x");
  te::Tensor h = te::placeholder({Dim(a.batch), Dim(a.hidden)}, ir::kFloat32, "h");
  te::Tensor c;
  if (lstm) c = te::placeholder({Dim(a.batch), Dim(a.hidden)}, ir::kFloat32, "c");
  te::Tensor w = te::placeholder({Dim(rows), Dim(k)}, ir::kFloat32, "weight");
  te::Tensor bias = te::placeholder({Dim(gates), Dim(a.hidden)}, ir::kFloat32, "bias");
  const int input = static_cast<int>(a.input), hidden = static_cast<int>(a.hidden);
  auto joined = [&](const ir::Expr& b, const ir::Expr& r) {
    return ir::if_then_else(r < input, x(b, r), h(b, r - input));
  };

  std::vector<StagedTile> staged;
  // index: b, g, j.
  ProductTerm term = [&](const std::vector<ir::Var>& v, const ir::Expr& r) {
    return joined(v[0], r) * w(v[1] * hidden + v[2], r);
  };
  if (tiles.split_k == 1) {
    const int64_t padded_rows = tiles.padded_rows(), padded_cols = tiles.padded_cols(),
                  padded_k = tiles.padded_k();
    te::Tensor xh_s = ZeroPadded(
        {padded_rows, padded_k}, {a.batch, k},
        [&](const std::vector<ir::Var>& v) { return joined(v[0], v[1]); }, "xh_shared");
    te::Tensor w_s = ZeroPadded(
        {gates, padded_k, padded_cols}, {gates, k, a.hidden},
        [&](const std::vector<ir::Var>& v) { return w(v[0] * hidden + v[2], v[1]); },
        "weight_shared");
    staged = {{xh_s, 1}, {w_s, 1}};
    term = [xh_s, w_s](const std::vector<ir::Var>& v, const ir::Expr& r) {
      return xh_s(v[0], r) * w_s(v[1], r, v[2]);
    };
  }
  ProductSums sums = MakeProductSums(dims, tiles, term, "gates");
  std::vector<te::Tensor> outs;
  if (lstm) {
    outs = nn::LstmCellOutputs(sums.acc, bias, c, a.batch, a.hidden, "lstm_cell");
  } else {
    outs = {nn::RnnCellOutput(sums.acc, bias, a.batch, a.hidden, "rnn_cell")};
  }

  OpProgram p;
  p.schedule = schedule::create_schedule({outs[0].op()});
  TESSEL_RETURN_IF_ERROR(ScheduleProduct(p.schedule, outs[0].op(), sums, staged, dims, tiles));
  p.args = {x, h};
  if (lstm) p.args.push_back(c);
  p.args.insert(p.args.end(), {w, bias});
  p.args.insert(p.args.end(), outs.begin(), outs.end());
  p.num_outputs = static_cast<int>(outs.size());
  // Multiply-adds of the product, the bias additions, and the LSTM state update (3 multiplies
  // and an add per unit); sigmoid and tanh are not counted.
  const double units = static_cast<double>(a.batch) * a.hidden;
  p.flops = units * gates * (2.0 * k + 1) + (lstm ? 4.0 * units : 0.0);
  // Weights as torch initializes them, U(-1/sqrt(hidden), 1/sqrt(hidden)), so that the gates
  // stay where sigmoid and tanh are not flat.
  const double scale = 1.0 / std::sqrt(static_cast<double>(a.hidden));
  p.logical_inputs = {{"x", {a.batch, a.input}}, {"h", {a.batch, a.hidden}}};
  if (lstm) p.logical_inputs.push_back({"c", {a.batch, a.hidden}});
  p.logical_inputs.push_back({"w_ih", {rows, a.input}, {kDLFloat, 32, 1}, -scale, scale});
  p.logical_inputs.push_back({"w_hh", {rows, a.hidden}, {kDLFloat, 32, 1}, -scale, scale});
  p.logical_inputs.push_back({"b_ih", {rows}, {kDLFloat, 32, 1}, -scale, scale});
  p.logical_inputs.push_back({"b_hh", {rows}, {kDLFloat, 32, 1}, -scale, scale});
  p.logical_outputs = {{"h_next", {a.batch, a.hidden}}};
  if (lstm) p.logical_outputs.push_back({"c_next", {a.batch, a.hidden}});
  const size_t state = lstm ? 3 : 2;  // x, h (, c)
  p.prepare = [state, gates](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    std::vector<runtime::NDArray> out(in.begin(), in.begin() + state);
    out.push_back(nn::JoinWeights(in[state], in[state + 1]));
    out.push_back(nn::SumBiases(in[state + 2], in[state + 3], gates));
    return out;
  };
  return p;
}

Template MakeTemplate(const char* name, int gates) {
  const bool lstm = gates == 4;
  Template t;
  t.name = name;
  t.op = lstm ? "lstm_cell" : "rnn_cell";
  t.summary = lstm ? "LSTM cell on a GPU: the gate sums in registers, cell math fused, one kernel"
                   : "RNN (tanh) cell on a GPU: the sums in registers, tanh fused, one kernel";
  t.space = [name, gates](const OpArgs& args,
                          const target::TargetFacts& facts) -> absl::StatusOr<search::ConfigSpace> {
    TESSEL_ASSIGN_OR_RETURN(nn::CellArgs a, nn::ReadCellArgs(name, args));
    TESSEL_RETURN_IF_ERROR(RequireGpu(name, facts).status());
    search::ConfigSpace space;
    DefineProductKnobs(space, Dims(a, gates), facts);
    return space;
  };
  t.fallback = [name, gates](const search::ConfigSpace& space, const OpArgs& args,
                             const target::TargetFacts& facts) {
    const nn::CellArgs a = *nn::ReadCellArgs(name, args);  // space has read them
    return ConfigFromKnobs(space, ProductFallback(Dims(a, gates), facts));
  };
  t.instantiate = [name, gates](const search::Config& config, const OpArgs& args,
                                const target::TargetFacts& facts) {
    return Instantiate(name, gates, config, args, facts);
  };
  return t;
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("gpu", MakeTemplate("rnn_cell.gpu", 1));
TESSEL_REGISTER_TEMPLATE("gpu", MakeTemplate("lstm_cell.gpu", 4));

}  // namespace tessel::ops::cuda
