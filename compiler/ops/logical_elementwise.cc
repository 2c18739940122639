// Logical signatures of the element-wise operators: those of one input (nn/unary.h) and the
// broadcasting binary operators.
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

// The signature of a unary operator; tests draw x from its range.
SignatureFn UnaryOp(const nn::UnaryOp& unary) {
  return [&unary](const std::string& op, const OpArgs& args) -> absl::StatusOr<LogicalSignature> {
    ArgReader r(op, args);
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, r.Shape("shape"));
    TESSEL_ASSIGN_OR_RETURN(const nn::ElementFn element, unary.element(r));
    te::Tensor x = Placeholder(shape, "x");
    te::Tensor out = nn::ApplyUnary(unary, element, x);
    return LogicalSignature{{SpecOf(x, "x", unary.low, unary.high)}, {SpecOf(out, "out")}};
  };
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

SignatureFn BinaryOp(nn::BinaryOp kind) {
  return [kind](const std::string& op, const OpArgs& args) -> absl::StatusOr<LogicalSignature> {
    ArgReader r(op, args);
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> a_shape, r.Shape("a_shape"));
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> b_shape, r.Shape("b_shape"));
    if (absl::Status s = nn::BroadcastShape(a_shape, b_shape).status(); !s.ok()) {
      return r.Error(absl::StrCat("arguments 'a_shape' ", ShapeText(a_shape), " and 'b_shape' ",
                                  ShapeText(b_shape), " do not broadcast: ", s.message()));
    }
    TESSEL_ASSIGN_OR_RETURN(const std::string dtype_text, r.StringOr("dtype", "float32"));
    const absl::StatusOr<ir::DataType> dtype = nn::BinaryElementType(kind, dtype_text);
    if (!dtype.ok()) return r.ErrorIn("dtype", dtype.status());
    te::Tensor a = Placeholder(a_shape, "a", *dtype);
    te::Tensor b = Placeholder(b_shape, "b", *dtype);
    absl::StatusOr<te::Tensor> out = nn::Binary(kind, a, b);
    if (!out.ok()) return r.Error(std::string(out.status().message()));
    const nn::BinaryInputRanges ranges = nn::InputRanges(kind);
    return LogicalSignature{
        {SpecOf(a, "a", ranges.a_low, ranges.a_high), SpecOf(b, "b", ranges.b_low, ranges.b_high)},
        {SpecOf(*out, "out")}};
  };
}

}  // namespace

void AddElementwiseOps(SignatureTable& table) {
  for (const nn::UnaryOp& unary : nn::UnaryOps()) table[unary.name] = UnaryOp(unary);
  for (nn::BinaryOp kind : nn::AllBinaryOps()) table[nn::BinaryOpName(kind)] = BinaryOp(kind);
}

}  // namespace tessel::ops::logical
