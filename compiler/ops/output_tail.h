#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/te/tensor.h"

// Operator fusion inside a kernel: an element-wise tail (bias add, activation, residual add, ...)
// applied to each element of a complex operator's output in the operator's own output stage, so
// it costs no extra pass over memory (the paper's complex-out-fusable rule). The graph compiler
// builds the tail from a fusion group's element-wise and broadcast nodes; templates that accept
// one (Template::instantiate_with_tail) store tail(value) where they stored value.
namespace tessel::ops {

struct OutputTail {
  // What the tail reads besides the operator's output: placeholders in logical layouts. The
  // program takes them after its own inputs; prepare passes them through unchanged.
  std::vector<te::Tensor> inputs;
  // The value to store for one output element, from the operator's result there (`value`) and
  // the element's logical index (the output form of compiler/ops/OPERATORS.md).
  std::function<ir::Expr(ir::Expr value, const std::vector<ir::Expr>& logical)> apply;
  // Whether the tail is indexed like the program's output itself rather than logically: a graph
  // keeping the output blocked (graph/passes/alter_layout.h) gives the tail its inputs in the
  // output's blocked layout (Template::channel_blocks), so an element's index there is its
  // index in every full-size tail input.
  bool program_index = false;
  // Optional: the same tail over views of the output and of its inputs (other shapes of the
  // same contiguous data, as injective::CollapseBroadcast makes them: the output's rank, extent
  // 1 where an input is broadcast): given the output's view and each input's, a tail reading new
  // placeholders of those shapes, applied at the view's index. A template that computes over
  // views (the element-wise ones) takes only tails that have it.
  std::function<OutputTail(const std::vector<int64_t>& out,
                           const std::vector<std::vector<int64_t>>& inputs)>
      over_views = nullptr;
};

// A tail whose inputs (named names[i], of shapes[i]) broadcast to the output (of out_shape) by
// numpy's rules: each is read at nn::BroadcastIndex of the element's index, and `combine` gives
// the stored value from the operator's result and those reads (in input order). It has
// over_views.
OutputTail BroadcastingTail(
    std::vector<int64_t> out_shape, const std::vector<std::string>& names,
    const std::vector<std::vector<int64_t>>& shapes,
    std::function<ir::Expr(ir::Expr value, const std::vector<ir::Expr>& reads)> combine);

// The logical index of an element of a program's output from its index there (identity for
// programs that give the logical form; NCHW[x]c -> NCHW for blocked ones).
using LogicalIndexFn = std::function<std::vector<ir::Expr>(const std::vector<ir::Expr>&)>;

// out with the tail applied element by element: the same shape and layout as out, named
// "<out's name>_tail". Scheduled as the output in out's place, with out computed inline.
// `blocked`, for a program whose output holds NCHW{b}c in another shape (Winograd's whole tiles):
// an element's NCHW{b}c index, what a program_index tail reads its inputs at; null: the index
// itself.
te::Tensor ApplyTail(const te::Tensor& out, const OutputTail& tail, const LogicalIndexFn& logical,
                     const LogicalIndexFn& blocked = nullptr);

}  // namespace tessel::ops
