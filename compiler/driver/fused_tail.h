#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/ops/output_tail.h"

// A fusion group (graph/passes/fuse_ops.h) as one kernel: the master's template instantiated
// with an OutputTail (ops/output_tail.h) made of the group's other nodes.
//
// Tail nodes are relu, leaky_relu, sigmoid, tanh, clip and the broadcasting add, subtract,
// multiply, divide, maximum and minimum, with the operator library's element functions
// (ops/nn/activation.h, ops/nn/elementwise.h), so a fused node computes what its own kernel
// would. The tail is evaluated per element of the group's output, at its logical index l: a
// node's expression is its element function of its inputs' expressions, where an input is
//   - the master's output: the tail's `value` (the master's result at l);
//   - another tail node: that node's expression at l;
//   - a value from outside the group (an activation, a constant, a graph input): a tail input,
//     a placeholder of the value's own shape in its logical layout, read at the numpy broadcast
//     of l onto that shape (nn::BroadcastIndex). A value read twice is one input.
// Numpy broadcasting composes, so a node whose own output is smaller than the group's (a tail
// node over constants only) is evaluated at l the same way. When the master's output is held
// blocked (node_layout.h, the layout pass), the group's values are blocked too and l is the
// blocked index, which is the program's own output index (OutputTail::program_index): a residual
// held in the same blocks is then read contiguously, not gathered.
//
// A group is not expressible (BuildFusedTail fails with FailedPrecondition saying why; the
// caller compiles it otherwise) when:
//   - the master has more than one output, or the group more than one (the last node's);
//   - a tail node is another operator (batch_norm, injective operators, a second master) or has
//     more than one output;
//   - a value is not float32, or the master's output is not the group output's shape (its value
//     would be read broadcast);
//   - a tail input is channel-strided (see TailRules) and the rules say no;
//   - the tail's expression tree (a node read twice counts twice) exceeds kMaxTailTreeSize.
namespace tessel::driver {

inline constexpr int kMaxTailTreeSize = 512;

struct TailRules {
  // Whether a tail input may vary along both the channel axis (1) of a 4-d NCHW output and a
  // later axis (a residual, unlike a [C, 1, 1] bias). A template whose output stage is blocked
  // (NCHW[x]c) reads such an input with a stride per vector lane, a gather; where that costs
  // more than a separate pass over memory, the template's rule says no (compile_model.h).
  bool channel_strided_inputs = true;
};

struct FusedTail {
  ops::OutputTail tail;
  std::vector<graph::ValueId> inputs;  // the value tail.inputs[i] reads
  // The tail as text, its inputs' types included ("add(v,i0);relu(t0) i0=float32[64, 1, 1]"):
  // two groups with the same master task and the same signature compute the same function of
  // their inputs, so they share a kernel.
  std::string signature;
};

// `nodes`: the group's nodes (increasing), `master` one of them: a node whose operator's
// template takes a tail. Errors: FailedPrecondition (not expressible, why).
absl::StatusOr<FusedTail> BuildFusedTail(const graph::Graph& g, int master,
                                         const std::vector<int>& nodes, const TailRules& rules);

// Whether `op` can be a tail node (the list above).
bool IsTailOperator(const std::string& op);

// Whether an input of shape `shape` read by a tail over a 4-d output of shape `out` is
// channel-strided (TailRules).
bool IsChannelStrided(const std::vector<int64_t>& shape, const std::vector<int64_t>& out);

}  // namespace tessel::driver
