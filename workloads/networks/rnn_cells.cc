// Fig. 4's recurrent workloads (PAPER.md §5): one step of an RNN cell and of an LSTM cell,
// hidden 128, input 128, written with primitive operators (dense, add, take, sigmoid, tanh,
// multiply) rather than the opaque rnn_cell / lstm_cell operators, so that each element-wise
// step is a node of its own that fusion may merge (the paper's unfused cell is separate
// kernels). They compute what torch's RNNCell (tanh) and LSTMCell compute:
//   rnn_cell   x, h float32[N, 128] -> h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)
//   lstm_cell  x, h, c float32[N, 128] -> gates = x W_ih^T + b_ih + h W_hh^T + b_hh [N, 512],
//              split by `take` on axis 1 into i, f, g, o (torch's order) -> c' = sigmoid(f) c +
//              sigmoid(i) tanh(g), h' = sigmoid(o) tanh(c') -> outputs h', c' (in that order)
// The state is a graph input, not a constant: with constant h and c, constant folding would
// compute the recurrent half of the cell at compile time. Weights are uniform in
// +-1/sqrt(hidden) (torch's default for both cells), named as torch's cells name them
// ("weight_ih", "bias_hh", ...).
#include <absl/strings/str_cat.h>

#include <cmath>

#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {
namespace {

struct CellWeights {
  ValueId w_ih, w_hh, b_ih, b_hh;
};

// torch's parameters of a cell with `gates` x hidden rows.
CellWeights Weights(LayerBuilder& l, int64_t gates) {
  const double bound = 1 / std::sqrt(static_cast<double>(kCellHidden));
  return {l.Uniform("weight_ih", {gates * kCellHidden, kCellHidden}, bound),
          l.Uniform("weight_hh", {gates * kCellHidden, kCellHidden}, bound),
          l.Uniform("bias_ih", {gates * kCellHidden}, bound),
          l.Uniform("bias_hh", {gates * kCellHidden}, bound)};
}

// x W_ih^T + b_ih + h W_hh^T + b_hh: two dense nodes and their sum.
ValueId Preactivation(graph::Builder& b, const CellWeights& w, ValueId x, ValueId h) {
  const ValueId from_x = b.Op("dense", {x, w.w_ih, w.b_ih}, {}, "dense_ih");
  const ValueId from_h = b.Op("dense", {h, w.w_hh, w.b_hh}, {}, "dense_hh");
  return b.Op("add", {from_x, from_h}, {}, "gates");
}

}  // namespace

absl::StatusOr<graph::Graph> BuildRnnCell(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  const ValueId x = b.Input("x", {{options.batch, kCellHidden}});
  const ValueId h = b.Input("h", {{options.batch, kCellHidden}});
  const CellWeights w = Weights(l, 1);
  b.Output(b.Op("tanh", {Preactivation(b, w, x, h)}, {}, "h_next"));
  return b.Finish();
}

absl::StatusOr<graph::Graph> BuildLstmCell(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  const ValueId x = b.Input("x", {{options.batch, kCellHidden}});
  const ValueId h = b.Input("h", {{options.batch, kCellHidden}});
  const ValueId c = b.Input("c", {{options.batch, kCellHidden}});
  const CellWeights w = Weights(l, 4);
  const ValueId gates = Preactivation(b, w, x, h);
  // Gate k is columns [k hidden, (k + 1) hidden) of the pre-activation.
  auto gate = [&](int64_t k, const char* name, const char* activation) {
    runtime::NDArray columns = runtime::NDArray::Empty({kCellHidden}, {kDLInt, 32, 1});
    for (int64_t i = 0; i < kCellHidden; ++i) {
      columns.data<int32_t>()[i] = static_cast<int32_t>(k * kCellHidden + i);
    }
    const ValueId index = b.Constant(absl::StrCat(name, ".columns"), columns);
    const ValueId slice =
        b.Op("take", {gates, index}, {{"axis", 1}}, absl::StrCat(name, ".preactivation"));
    return b.Op(activation, {slice}, {}, name);
  };
  const ValueId in = gate(0, "input_gate", "sigmoid");
  const ValueId forget = gate(1, "forget_gate", "sigmoid");
  const ValueId cell = gate(2, "cell_gate", "tanh");
  const ValueId out = gate(3, "output_gate", "sigmoid");
  const ValueId kept = b.Op("multiply", {forget, c}, {}, "c_kept");
  const ValueId added = b.Op("multiply", {in, cell}, {}, "c_added");
  const ValueId c_next = b.Op("add", {kept, added}, {}, "c_next");
  const ValueId squashed = b.Op("tanh", {c_next}, {}, "c_next_tanh");
  b.Output(b.Op("multiply", {out, squashed}, {}, "h_next"));
  b.Output(c_next);
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
