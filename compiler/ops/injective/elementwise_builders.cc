// The element-wise operators of one input (nn/unary.h) and the broadcasting binary operators as
// injective computes. Flops: one per output element, whatever the operator (sigmoid included).
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/ir/dl_type.h"
#include "compiler/ops/injective/builders.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::injective {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

te::Tensor Placeholder(const std::vector<int64_t>& shape, const std::string& name,
                       ir::DataType dtype = ir::kFloat32) {
  return te::placeholder(nn::ShapeExprs(shape), dtype, name);
}

// The element-wise computes of `operands` (logical shapes of one element type) broadcast to
// `out`, with `tail` (may be null) applied: the operands and the tail's inputs over their joint
// CollapseBroadcast views, so that along each axis of the views each of them is present or
// broadcast as a whole. The program takes the operands, then the tail's inputs.
absl::StatusOr<InjectiveOp> OverViews(
    const std::string& name, std::vector<TensorSpec> operands, const std::vector<int64_t>& out,
    ir::DataType dtype,
    const std::function<absl::StatusOr<te::Tensor>(const std::vector<te::Tensor>&)>& compute,
    const OutputTail* tail) {
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorSpec& o : operands) shapes.push_back(o.shape);
  const size_t own = shapes.size();
  if (tail != nullptr) {
    if (!tail->over_views) {
      return absl::FailedPreconditionError(
          absl::StrCat(name, ": the tail cannot be evaluated over views (no over_views)"));
    }
    for (const te::Tensor& t : tail->inputs) {
      TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, nn::ConstShape(t, name));
      if (shape.size() > out.size() || !nn::BroadcastShape(shape, out).ok() ||
          *nn::BroadcastShape(shape, out) != out) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": tail input '", t.name(), "' ",
                                                       ShapeText(shape), " does not broadcast to ",
                                                       ShapeText(out)));
      }
      shapes.push_back(shape);
      operands.push_back({t.name(), shape, ir::ToDLType(t.dtype())});
    }
  }
  const CollapsedViews views = CollapseBroadcast(out, shapes);
  InjectiveOp op;
  for (size_t i = 0; i < own; ++i) {
    op.inputs.push_back(Placeholder(views.operands[i], operands[i].name, dtype));
  }
  TESSEL_ASSIGN_OR_RETURN(op.output, compute(op.inputs));
  if (tail != nullptr) {
    const std::vector<std::vector<int64_t>> tail_views(views.operands.begin() + own,
                                                       views.operands.end());
    const OutputTail view_tail = tail->over_views(views.out, tail_views);
    op.output =
        ApplyTail(op.output, view_tail, [](const std::vector<ir::Expr>& index) { return index; });
    op.inputs.insert(op.inputs.end(), view_tail.inputs.begin(), view_tail.inputs.end());
  }
  op.logical_inputs = std::move(operands);
  op.logical_output_shape = out;
  op.prepare = ReshapeArrays(views.operands);
  op.finish = ReshapeArrays({out});
  return op;
}

}  // namespace

TailedInjectiveBuilder UnaryTailBuilder(const nn::UnaryOp& unary) {
  return [&unary](const std::string& name, const OpArgs& args,
                  const OutputTail* tail) -> absl::StatusOr<InjectiveOp> {
    ArgReader reader(name, args);
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, reader.Shape("shape"));
    TESSEL_ASSIGN_OR_RETURN(const nn::ElementFn element, unary.element(reader));
    return OverViews(
        name, {{"x", shape, {kDLFloat, 32, 1}, unary.low, unary.high}}, shape, ir::kFloat32,
        [&](const std::vector<te::Tensor>& x) -> absl::StatusOr<te::Tensor> {
          return nn::ApplyUnary(unary, element, x[0]);
        },
        tail);
  };
}

TailedInjectiveBuilder BinaryTailBuilder(nn::BinaryOp kind) {
  return [kind](const std::string& name, const OpArgs& args,
                const OutputTail* tail) -> absl::StatusOr<InjectiveOp> {
    ArgReader reader(name, args);
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> a_shape, reader.Shape("a_shape"));
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> b_shape, reader.Shape("b_shape"));
    absl::StatusOr<std::vector<int64_t>> out = nn::BroadcastShape(a_shape, b_shape);
    if (!out.ok()) {
      return reader.Error(absl::StrCat("arguments 'a_shape' ", ShapeText(a_shape),
                                       " and 'b_shape' ", ShapeText(b_shape),
                                       " do not broadcast: ", out.status().message()));
    }
    TESSEL_ASSIGN_OR_RETURN(const std::string dtype_text, reader.StringOr("dtype", "float32"));
    const absl::StatusOr<ir::DataType> dtype = nn::BinaryElementType(kind, dtype_text);
    if (!dtype.ok()) return reader.ErrorIn("dtype", dtype.status());
    const nn::BinaryInputRanges ranges = nn::InputRanges(kind);
    const DLDataType element = ir::ToDLType(*dtype);
    return OverViews(
        name,
        {{"a", a_shape, element, ranges.a_low, ranges.a_high},
         {"b", b_shape, element, ranges.b_low, ranges.b_high}},
        *out, *dtype,
        [&](const std::vector<te::Tensor>& ab) { return nn::Binary(kind, ab[0], ab[1]); }, tail);
  };
}

InjectiveBuilder UnaryBuilder(const nn::UnaryOp& unary) {
  return [build = UnaryTailBuilder(unary)](const std::string& name, const OpArgs& args) {
    return build(name, args, nullptr);
  };
}

InjectiveBuilder BinaryBuilder(nn::BinaryOp kind) {
  return [build = BinaryTailBuilder(kind)](const std::string& name, const OpArgs& args) {
    return build(name, args, nullptr);
  };
}

}  // namespace tessel::ops::injective
