// rnn_cell_fused.x86 and lstm_cell_fused.x86: the recurrent cells (nn/rnn.h) as one matrix
// product in register tiles (matrix_tiles.h) with the gate math applied to each tile as it
// leaves the registers.
//
// The rows of a tile are batch rows and its columns hidden units; an LSTM tile holds the same
// columns of all four gates (one broadcast of [x, h] feeds the four), so its epilogue has
// i, f, g and o of each unit at hand. The joined, per-gate packed weight and the summed biases
// are made on the host in `prepare` (they are constants in a network, dense_template.cc says
// why); joining x and h is a stage of the program (they are activations).

#include <cmath>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/dense.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/rnn.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/matrix_tiles.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using nn::Dim;

// gates: 1 (RNN, tanh) or 4 (LSTM).
Template MakeTemplate(const char* name, int gates) {
  const bool lstm = gates == 4;
  Template t;
  t.name = name;
  t.op = lstm ? "lstm_cell" : "rnn_cell";
  t.summary = lstm ? "LSTM cell: the gates' matrix product in register tiles, cell math fused"
                   : "RNN (tanh) cell: the matrix product in register tiles, tanh fused";
  t.space = [name](const OpArgs& args,
                   const target::TargetFacts& facts) -> absl::StatusOr<search::ConfigSpace> {
    TESSEL_ASSIGN_OR_RETURN(nn::CellArgs a, nn::ReadCellArgs(name, args));
    search::ConfigSpace space;
    DefineMatrixTileKnobs(space, a.batch, a.hidden, a.input + a.hidden, facts);
    return space;
  };
  t.fallback = [name, gates](const search::ConfigSpace& space, const OpArgs& args,
                             const target::TargetFacts& facts) {
    const nn::CellArgs a = *nn::ReadCellArgs(name, args);  // space has read them
    return ConfigFromKnobs(space,
                           MatrixTileFallback(a.batch, a.hidden, a.input + a.hidden, facts, gates));
  };
  t.instantiate = [name, gates, lstm](
                      const search::Config& config, const OpArgs& args,
                      const target::TargetFacts& facts) -> absl::StatusOr<OpProgram> {
    TESSEL_ASSIGN_OR_RETURN(nn::CellArgs a, nn::ReadCellArgs(name, args));
    const MatrixTiles t = ReadMatrixTiles(config);
    const int64_t k = a.input + a.hidden, bn = t.cols(), panels = t.padded_n() / bn;
    te::Tensor x = te::placeholder({Dim(a.batch), Dim(a.input)}, ir::kFloat32, "x");
    te::Tensor h = te::placeholder({Dim(a.batch), Dim(a.hidden)}, ir::kFloat32, "h");
    te::Tensor c;
    if (lstm) c = te::placeholder({Dim(a.batch), Dim(a.hidden)}, ir::kFloat32, "c");
    te::Tensor w =
        te::placeholder({Dim(gates), Dim(panels), Dim(k), Dim(bn)}, ir::kFloat32, "weight");
    te::Tensor bias = te::placeholder({Dim(gates), Dim(a.hidden)}, ir::kFloat32, "bias");
    te::Tensor xh = nn::JoinInputs(x, h, t.padded_m(), "xh");
    te::Tensor sums = nn::GateSums(xh, w, t.padded_n(), "gates");
    std::vector<te::Tensor> outs;
    if (lstm) {
      outs = nn::LstmCellOutputs(sums, bias, c, a.batch, a.hidden, "lstm_cell");
    } else {
      outs = {nn::RnnCellOutput(sums, bias, a.batch, a.hidden, "rnn_cell")};
    }

    OpProgram p;
    p.schedule = schedule::create_schedule({outs[0].op()});
    TESSEL_RETURN_IF_ERROR(ScheduleMatrixTiles(p.schedule, outs[0].op(), {sums}, t, facts));
    TESSEL_RETURN_IF_ERROR(ScheduleCopyStage(p.schedule, xh, facts));
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
    const int64_t rows = gates * a.hidden;
    p.logical_inputs = {{"x", {a.batch, a.input}}, {"h", {a.batch, a.hidden}}};
    if (lstm) p.logical_inputs.push_back({"c", {a.batch, a.hidden}});
    p.logical_inputs.push_back({"w_ih", {rows, a.input}, {kDLFloat, 32, 1}, -scale, scale});
    p.logical_inputs.push_back({"w_hh", {rows, a.hidden}, {kDLFloat, 32, 1}, -scale, scale});
    p.logical_inputs.push_back({"b_ih", {rows}, {kDLFloat, 32, 1}, -scale, scale});
    p.logical_inputs.push_back({"b_hh", {rows}, {kDLFloat, 32, 1}, -scale, scale});
    p.logical_outputs = {{"h_next", {a.batch, a.hidden}}};
    if (lstm) p.logical_outputs.push_back({"c_next", {a.batch, a.hidden}});
    const size_t state = lstm ? 3 : 2;  // x, h (, c)
    p.prepare = [state, gates, bn, panels](const std::vector<runtime::NDArray>& in)
        -> absl::StatusOr<std::vector<runtime::NDArray>> {
      std::vector<runtime::NDArray> out(in.begin(), in.begin() + state);
      out.push_back(
          nn::PackGroupedRowPanels(nn::JoinWeights(in[state], in[state + 1]), gates, bn, panels));
      out.push_back(nn::SumBiases(in[state + 2], in[state + 3], gates));
      return out;
    };
    return p;
  };
  return t;
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("cpu", MakeTemplate("rnn_cell_fused.x86", 1));
TESSEL_REGISTER_TEMPLATE("cpu", MakeTemplate("lstm_cell_fused.x86", 4));

}  // namespace tessel::ops::x86
