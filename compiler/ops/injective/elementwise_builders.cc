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

}  // namespace

// The program works on x as one row of all its elements (a view: prepare and finish reshape).
InjectiveBuilder UnaryBuilder(const nn::UnaryOp& unary) {
  return [&unary](const std::string& name, const OpArgs& args) -> absl::StatusOr<InjectiveOp> {
    ArgReader reader(name, args);
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, reader.Shape("shape"));
    TESSEL_ASSIGN_OR_RETURN(const nn::ElementFn element, unary.element(reader));
    const std::vector<int64_t> flat = {nn::NumElements(shape)};
    InjectiveOp op;
    te::Tensor x = Placeholder(flat, "x");
    op.output = nn::ApplyUnary(unary, element, x);
    op.inputs = {x};
    op.logical_inputs = {{"x", shape, {kDLFloat, 32, 1}, unary.low, unary.high}};
    op.logical_output_shape = shape;
    op.prepare = ReshapeArrays({flat});
    op.finish = ReshapeArrays({shape});
    return op;
  };
}

// The program works on the collapsed views of a, b and the output (CollapseBroadcast): along
// each axis of the views, each operand is present or broadcast as a whole.
InjectiveBuilder BinaryBuilder(nn::BinaryOp kind) {
  return [kind](const std::string& name, const OpArgs& args) -> absl::StatusOr<InjectiveOp> {
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
    const CollapsedViews views = CollapseBroadcast(*out, {a_shape, b_shape});
    InjectiveOp op;
    te::Tensor a = Placeholder(views.operands[0], "a", *dtype);
    te::Tensor b = Placeholder(views.operands[1], "b", *dtype);
    TESSEL_ASSIGN_OR_RETURN(op.output, nn::Binary(kind, a, b));
    op.inputs = {a, b};
    const nn::BinaryInputRanges ranges = nn::InputRanges(kind);
    const DLDataType element = ir::ToDLType(*dtype);
    op.logical_inputs = {{"a", a_shape, element, ranges.a_low, ranges.a_high},
                         {"b", b_shape, element, ranges.b_low, ranges.b_high}};
    op.logical_output_shape = *out;
    op.prepare = ReshapeArrays(views.operands);
    op.finish = ReshapeArrays({*out});
    return op;
  };
}

}  // namespace tessel::ops::injective
