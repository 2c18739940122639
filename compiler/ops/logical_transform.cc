// Logical signatures of the data-movement operators: concatenate, reshape, flatten, transpose,
// pad, layout_transform, take, cast (an element type conversion of one input), quantize and
// dequantize.
#include <absl/strings/str_cat.h>

#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/cast.h"
#include "compiler/ops/nn/layout.h"
#include "compiler/ops/nn/quantize.h"
#include "compiler/ops/nn/take.h"
#include "compiler/ops/nn/transform.h"
#include "compiler/ops/nn/transform_args.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

// The signature of an operator of one input x: x -> out.
LogicalSignature Unary(const te::Tensor& x, const te::Tensor& out) {
  return LogicalSignature{{SpecOf(x, "x")}, {SpecOf(out, "out")}};
}

absl::StatusOr<LogicalSignature> Concatenate(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(nn::ConcatenateArgs a, nn::ReadConcatenateArgs(r, args));
  LogicalSignature sig;
  std::vector<te::Tensor> inputs;
  for (size_t k = 0; k < a.shapes.size(); ++k) {
    const std::string name = absl::StrCat("x", k);
    inputs.push_back(Placeholder(a.shapes[k], name));
    sig.inputs.push_back(SpecOf(inputs.back(), name));
  }
  absl::StatusOr<te::Tensor> out = nn::Concatenate(inputs, a.axis);
  if (!out.ok()) return r.ErrorIn("shapes", out.status());
  sig.outputs = {SpecOf(*out, "out")};
  return sig;
}

absl::StatusOr<LogicalSignature> Reshape(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(nn::ReshapeArgs a, nn::ReadReshapeArgs(r));
  te::Tensor x = Placeholder(a.shape, "x", a.dtype);
  absl::StatusOr<te::Tensor> out = nn::Reshape(x, a.newshape);
  if (!out.ok()) return r.ErrorIn("newshape", out.status());
  return Unary(x, *out);
}

absl::StatusOr<LogicalSignature> Flatten(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(nn::FlattenArgs a, nn::ReadFlattenArgs(r));
  te::Tensor x = Placeholder(a.shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Flatten(x, a.axis);
  if (!out.ok()) return r.ErrorIn("axis", out.status());
  return Unary(x, *out);
}

absl::StatusOr<LogicalSignature> Transpose(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(nn::TransposeArgs a, nn::ReadTransposeArgs(r));
  te::Tensor x = Placeholder(a.shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Transpose(x, a.axes);
  if (!out.ok()) return r.ErrorIn("axes", out.status());
  return Unary(x, *out);
}

absl::StatusOr<LogicalSignature> Pad(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(nn::PadArgs a, nn::ReadPadArgs(r));
  te::Tensor x = Placeholder(a.shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Pad(x, a.before, a.after, a.value, a.mode);
  if (!out.ok()) return r.ErrorIn("pad_before", out.status());
  return Unary(x, *out);
}

absl::StatusOr<LogicalSignature> LayoutTransform(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, r.Shape("shape"));
  TESSEL_ASSIGN_OR_RETURN(nn::LayoutTransformArgs a, nn::ReadLayoutTransformArgs(r, shape));
  te::Tensor x = Placeholder(shape, "x");
  absl::StatusOr<te::Tensor> out = nn::LayoutTransform(x, a.src, a.dst);
  if (!out.ok()) return r.ErrorIn("dst", out.status());
  return Unary(x, *out);
}

// Indices are drawn from [-n - 2, n + 2) (n: the extent of the gathered axis), past both ends, so
// that every check exercises the clamp.
absl::StatusOr<LogicalSignature> Take(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> data_shape, r.Shape("data_shape"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> indices_shape, r.Shape("indices_shape"));
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, r.IntOr("axis", 0, -rank));
  if (axis >= rank) {
    return r.Error(
        absl::StrCat("argument 'axis' must be below the rank ", rank, " of 'data_shape'"));
  }
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType index_type, nn::TakeIndexType(r));
  te::Tensor data = Placeholder(data_shape, "data");
  te::Tensor indices = Placeholder(indices_shape, "indices", index_type);
  absl::StatusOr<te::Tensor> out = nn::Take(data, indices, axis);
  if (!out.ok()) return r.ErrorIn("axis", out.status());
  const int64_t n = data_shape[axis < 0 ? axis + rank : axis];
  return LogicalSignature{
      {SpecOf(data, "data"),
       SpecOf(indices, "indices", static_cast<double>(-n - 2), static_cast<double>(n + 2))},
      {SpecOf(*out, "out")}};
}

// x of `from`, out of `to`; x drawn from nn::CastRange.
absl::StatusOr<LogicalSignature> Cast(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, r.Shape("shape"));
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType from, nn::CastElementType(r, "from"));
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType to, nn::CastElementType(r, "to"));
  te::Tensor x = Placeholder(shape, "x", from);
  absl::StatusOr<te::Tensor> out = nn::Cast(x, to);
  if (!out.ok()) return r.ErrorIn("to", out.status());
  const nn::CastInputRange range = nn::CastRange(from, to);
  return LogicalSignature{{SpecOf(x, "x", range.low, range.high)}, {SpecOf(*out, "out")}};
}

// quantize: x float32, out int8; dequantize: x int8, out float32 (nn/quantize.h). quantize's x
// is drawn past both clipping bounds.
absl::StatusOr<LogicalSignature> Quantize(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, r.Shape("shape"));
  TESSEL_ASSIGN_OR_RETURN(const double scale, nn::ReadQuantScale(op, args));
  if (op == "quantize") {
    te::Tensor x = Placeholder(shape, "x", ir::kFloat32);
    return LogicalSignature{{SpecOf(x, "x", -160 * scale, 160 * scale)},
                            {SpecOf(nn::Quantize(x, scale), "out")}};
  }
  te::Tensor x = Placeholder(shape, "x", ir::DataType::Int(8));
  return LogicalSignature{{SpecOf(x, "x", -127, 128)}, {SpecOf(nn::Dequantize(x, scale), "out")}};
}

}  // namespace

void AddTransformOps(SignatureTable& table) {
  table["concatenate"] = Concatenate;
  table["reshape"] = Reshape;
  table["flatten"] = Flatten;
  table["transpose"] = Transpose;
  table["pad"] = Pad;
  table["layout_transform"] = LayoutTransform;
  table["take"] = Take;
  table["cast"] = Cast;
  table["quantize"] = Quantize;
  table["dequantize"] = Quantize;
}

}  // namespace tessel::ops::logical
