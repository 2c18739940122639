#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/ops/output_tail.h"
#include "compiler/ops/template.h"
#include "compiler/te/tensor.h"

// Injective operators (each output element computed from inputs by index arithmetic alone:
// element-wise and data-movement operators) as target-independent computes: what a builder
// makes of an operator's arguments, before any schedule. Each target family schedules the
// output its own way (ops/x86/injective_schedule.h, ops/cuda/injective_schedule.h).
namespace tessel::ops::injective {

// The computes of one injective operator: one output, every other stage small or inlinable.
struct InjectiveOp {
  std::vector<te::Tensor> inputs;  // placeholders, in the logical inputs' order
  te::Tensor output;
  std::vector<TensorSpec> logical_inputs;  // same order; names and value ranges for tests
  // When the program reads or writes views (other shapes of the same contiguous data): the
  // logical output's shape (empty: the output's) and the host reshapes to and from the views.
  std::vector<int64_t> logical_output_shape;
  HostTransform prepare, finish;
  // The most trailing axes of the output (>= 1) whose fusion keeps every input's index affine
  // in the fused index: all axes for same-shape element-wise operators, fewer when an input is
  // broadcast or permuted along some of them.
  int max_inner_axes = 1;
  // Arithmetic per output element (0 for data movement).
  double flops_per_element = 1;
  // Small intermediate stages a schedule may compute once, before the output (batch_norm's
  // per-channel scale and shift); every other intermediate stage is meant to be inlined into
  // the output. Inlining these too is correct (each element recomputes them).
  std::vector<te::Tensor> root_stages;
};

// The logical output of the operator whose program computes `shape`: the logical shape (or
// `shape`), of the output's element type.
TensorSpec LogicalOutput(const InjectiveOp& op, const std::vector<int64_t>& shape);

// Reads and checks args (errors name `name`, the template reading them, and the key) and
// builds the computes.
using InjectiveBuilder =
    std::function<absl::StatusOr<InjectiveOp>(const std::string& name, const OpArgs& args)>;
// The same with an output tail (ops/output_tail.h) fused into the output; null: none.
using TailedInjectiveBuilder = std::function<absl::StatusOr<InjectiveOp>(
    const std::string& name, const OpArgs& args, const OutputTail* tail)>;

// The shapes under which an element-wise operation over operands broadcast to `out` (numpy
// rules) can run with the fewest axes: axes of extent 1 dropped, and runs of adjacent axes
// along which every operand is either entirely present or entirely broadcast merged into one.
// operands[i] gets the view of operands[i] (same rank as the view of out, 1 where broadcast).
struct CollapsedViews {
  std::vector<int64_t> out;
  std::vector<std::vector<int64_t>> operands;
};
CollapsedViews CollapseBroadcast(const std::vector<int64_t>& out,
                                 const std::vector<std::vector<int64_t>>& operands);

}  // namespace tessel::ops::injective
