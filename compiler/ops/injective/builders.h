#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/ops/injective/injective_op.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/ops/op_args.h"

// The builders of the injective operators of OPERATORS.md (InjectiveBuilder): each reads the
// operator's arguments (errors name the template `name` and the key) and returns its computes
// over views of the tensors chosen so that every target's schedule indexes them simply: mergeable
// axes merged (prepare and finish reshape on the host, free for a graph compiler). Shared by the
// x86 and GPU templates, so that both compute the same thing from the same arguments.
namespace tessel::ops::injective {

// The element-wise operators of one input (nn/unary.h; elementwise_builders.cc): x as one row
// of all its elements, test values from the operator's range. `unary` must outlive the builder
// (the table's entries do).
InjectiveBuilder UnaryBuilder(const nn::UnaryOp& unary);

// add, subtract, multiply, divide, maximum, minimum, power with numpy broadcasting
// (elementwise_builders.cc), over the CollapseBroadcast views of a, b and the output.
InjectiveBuilder BinaryBuilder(nn::BinaryOp kind);

// The same operators with an output tail fused (ops/output_tail.h; a fusion group without a
// complex master, led by its first element-wise node): the operands and the tail's inputs over
// their joint CollapseBroadcast views, the output the tail of the operator's value. The program
// takes the tail's inputs after the operands (as AppendTailInputs orders them), each viewed as
// a reshape of its logical form. Errors: a tail without over_views, or an input of it that does
// not broadcast to the output. A null tail builds what UnaryBuilder and BinaryBuilder do.
TailedInjectiveBuilder UnaryTailBuilder(const nn::UnaryOp& unary);
TailedInjectiveBuilder BinaryTailBuilder(nn::BinaryOp kind);

// Data movement (transform_builders.cc). reshape and flatten copy one flat row; concatenate
// joins [before, axis, after] views; transpose and pad fuse the trailing axes they keep in
// place; layout_transform between channel blocks of which one divides the other is a transpose
// of views. Flops 0.
absl::StatusOr<InjectiveOp> BuildConcatenate(const std::string& name, const OpArgs& args);
absl::StatusOr<InjectiveOp> BuildReshape(const std::string& name, const OpArgs& args);
absl::StatusOr<InjectiveOp> BuildFlatten(const std::string& name, const OpArgs& args);
absl::StatusOr<InjectiveOp> BuildTranspose(const std::string& name, const OpArgs& args);
absl::StatusOr<InjectiveOp> BuildPad(const std::string& name, const OpArgs& args);
absl::StatusOr<InjectiveOp> BuildLayoutTransform(const std::string& name, const OpArgs& args);

// take (take_builder.cc): data as [outer, n, inner], indices as one row [m], the output as
// [outer, m, inner] (extent-1 outer and inner dropped).
absl::StatusOr<InjectiveOp> BuildTake(const std::string& name, const OpArgs& args);

// cast (cast_builder.cc): x of `from` as one row of all its elements, converted to `to`
// (nn/cast.h). Flops 0.
absl::StatusOr<InjectiveOp> BuildCast(const std::string& name, const OpArgs& args);
// quantize and dequantize (quantize_builder.cc): x as one row of all its elements, converted
// (nn/quantize.h). Flops 0.
absl::StatusOr<InjectiveOp> BuildQuantize(const std::string& name, const OpArgs& args);
absl::StatusOr<InjectiveOp> BuildDequantize(const std::string& name, const OpArgs& args);

// batch_norm (batch_norm_builder.cc): data as [N, C, H * W]; the per-channel scale and shift
// are root_stages.
absl::StatusOr<InjectiveOp> BuildBatchNorm(const std::string& name, const OpArgs& args);

// Every operator above with its builder, in the order of this header (the unary table's and
// the binary operators' in theirs).
struct InjectiveOperator {
  std::string op;  // the operator's name in OPERATORS.md
  InjectiveBuilder build;
  TailedInjectiveBuilder build_with_tail = nullptr;  // the element-wise operators' (above)
};
const std::vector<InjectiveOperator>& InjectiveOperators();

}  // namespace tessel::ops::injective
