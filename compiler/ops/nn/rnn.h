#pragma once

#include <cstdint>
#include <vector>

#include "compiler/runtime/ndarray.h"
#include "compiler/te/tensor.h"

// The recurrent cells of OPERATORS.md as one matrix product and a fused epilogue: torch's RNNCell
// (h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)) and LSTMCell (gates i, f, g, o, in that order,
// in blocks of `hidden` rows of W_ih and W_hh; c' = sigmoid(f) c + sigmoid(i) tanh(g),
// h' = sigmoid(o) tanh(c')).
//
// The two products are one: [x, h] (joined along the features) times [W_ih, W_hh] (joined along
// their columns), whose biases add up to one. The joined weight is packed per gate into panels
// (nn::PackGroupedRowPanels): packed [gates, panels, input + hidden, bn]. The x86 template
// computes the gate sums per register tile and applies the epilogue to the tile (the paper's
// fused "RNN cell" and "LSTM cell").
namespace tessel::ops::nn {

// xh[b, r] = x[b, r] for r < input, h[b, r - input] after; rows past x's are zero up to `rows`.
te::Tensor JoinInputs(const te::Tensor& x, const te::Tensor& h, int64_t rows,
                      const char* name = "xh");

// gates[b, g, j] = sum_r xh[b, r] * packed[g, j / bn, r, j % bn] for j < cols (cols: a multiple
// of bn within the panels).
te::Tensor GateSums(const te::Tensor& xh, const te::Tensor& packed, int64_t cols,
                    const char* name = "gates");

// h'[b, j] = tanh(gates[b, 0, j] + bias[0, j]) for b < batch, j < hidden.
te::Tensor RnnCellOutput(const te::Tensor& gates, const te::Tensor& bias, int64_t batch,
                         int64_t hidden, const char* name = "rnn_cell");

// {h', c'} from gates [b, 4, j], bias [4, hidden] and the cell state c [batch, hidden]: one
// operation with two outputs.
std::vector<te::Tensor> LstmCellOutputs(const te::Tensor& gates, const te::Tensor& bias,
                                        const te::Tensor& c, int64_t batch, int64_t hidden,
                                        const char* name = "lstm_cell");

// Host: [w_ih, w_hh] joined along the columns ([rows, input + hidden]) and b_ih + b_hh as
// [gates, hidden]. Float32, contiguous.
runtime::NDArray JoinWeights(const runtime::NDArray& w_ih, const runtime::NDArray& w_hh);
runtime::NDArray SumBiases(const runtime::NDArray& b_ih, const runtime::NDArray& b_hh,
                           int64_t gates);

}  // namespace tessel::ops::nn
