// Logical signatures of the data-movement operators: concatenate, reshape, flatten, transpose,
// pad, layout_transform and take.
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/layout.h"
#include "compiler/ops/nn/take.h"
#include "compiler/ops/nn/transform.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

// An error of a compute, attributed to the argument it comes from.
absl::Status KeyError(const ArgReader& r, const std::string& key, const absl::Status& s) {
  return r.Error(absl::StrCat("argument '", key, "': ", s.message()));
}

// The signature of an operator of one input x: x -> out.
LogicalSignature Unary(const te::Tensor& x, const te::Tensor& out) {
  return LogicalSignature{{SpecOf(x, "x")}, {SpecOf(out, "out")}};
}

absl::StatusOr<LogicalSignature> Concatenate(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  auto shapes_error = [&] {
    return r.Error(
        "argument 'shapes' must be a non-empty list of shapes of one rank (lists of integers >= "
        "1)");
  };
  if (!args.is_object() || !args.contains("shapes") || !args.at("shapes").is_array() ||
      args.at("shapes").empty()) {
    return shapes_error();
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const OpArgs& s : args.at("shapes")) {
    const OpArgs one = {{"shape", s}};
    absl::StatusOr<std::vector<int64_t>> shape = ReadShape(ArgReader(op, one), "shape");
    if (!shape.ok() || (!shapes.empty() && shape->size() != shapes[0].size())) {
      return shapes_error();
    }
    shapes.push_back(*std::move(shape));
  }
  const int64_t rank = static_cast<int64_t>(shapes[0].size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, r.Int("axis", -rank));
  if (axis >= rank) return r.Error(absl::StrCat("argument 'axis' must be below the rank ", rank));
  LogicalSignature sig;
  std::vector<te::Tensor> inputs;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const std::string name = absl::StrCat("x", k);
    inputs.push_back(Placeholder(shapes[k], name));
    sig.inputs.push_back(SpecOf(inputs.back(), name));
  }
  absl::StatusOr<te::Tensor> out = nn::Concatenate(inputs, axis);
  if (!out.ok()) return KeyError(r, "shapes", out.status());
  sig.outputs = {SpecOf(*out, "out")};
  return sig;
}

absl::StatusOr<LogicalSignature> Reshape(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadShape(r, "shape"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> newshape, r.Ints("newshape", -1, -1));
  absl::StatusOr<std::vector<int64_t>> out_shape = nn::ReshapeShape(shape, newshape);
  if (!out_shape.ok()) return KeyError(r, "newshape", out_shape.status());
  if (out_shape->empty()) return r.Error("argument 'newshape' must not be empty");
  te::Tensor x = Placeholder(shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Reshape(x, newshape);
  if (!out.ok()) return KeyError(r, "newshape", out.status());
  return Unary(x, *out);
}

absl::StatusOr<LogicalSignature> Flatten(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadShape(r, "shape"));
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, r.IntOr("axis", 1, 0));
  if (axis > static_cast<int64_t>(shape.size())) {
    return r.Error(absl::StrCat("argument 'axis' must be at most the rank ", shape.size()));
  }
  te::Tensor x = Placeholder(shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Flatten(x, axis);
  if (!out.ok()) return KeyError(r, "axis", out.status());
  return Unary(x, *out);
}

absl::StatusOr<LogicalSignature> Transpose(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadShape(r, "shape"));
  const int64_t rank = static_cast<int64_t>(shape.size());
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> axes, r.Ints("axes", static_cast<int>(rank), -rank));
  for (int64_t a : axes) {
    if (a >= rank) {
      return r.Error(absl::StrCat("argument 'axes' must be a permutation of 0..", rank - 1));
    }
  }
  te::Tensor x = Placeholder(shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Transpose(x, axes);
  if (!out.ok()) return KeyError(r, "axes", out.status());
  return Unary(x, *out);
}

absl::StatusOr<LogicalSignature> Pad(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadShape(r, "shape"));
  const int rank = static_cast<int>(shape.size());
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> before, r.Ints("pad_before", rank, 0));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> after, r.Ints("pad_after", rank, 0));
  TESSEL_ASSIGN_OR_RETURN(double value, r.FloatOr("value", 0.0));
  te::Tensor x = Placeholder(shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Pad(x, before, after, value);
  if (!out.ok()) return KeyError(r, "pad_before", out.status());
  return Unary(x, *out);
}

absl::StatusOr<LogicalSignature> LayoutTransform(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadShape(r, "shape"));
  TESSEL_ASSIGN_OR_RETURN(nn::LayoutTransformArgs a, nn::ReadLayoutTransformArgs(r, shape));
  te::Tensor x = Placeholder(shape, "x");
  absl::StatusOr<te::Tensor> out = nn::LayoutTransform(x, a.src, a.dst);
  if (!out.ok()) return KeyError(r, "dst", out.status());
  return Unary(x, *out);
}

// Indices are drawn from [-n - 2, n + 2) (n: the extent of the gathered axis), past both ends, so
// that every check exercises the clamp.
absl::StatusOr<LogicalSignature> Take(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> data_shape, ReadShape(r, "data_shape"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> indices_shape, ReadShape(r, "indices_shape"));
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, r.IntOr("axis", 0, -rank));
  if (axis >= rank) {
    return r.Error(
        absl::StrCat("argument 'axis' must be below the rank ", rank, " of 'data_shape'"));
  }
  te::Tensor data = Placeholder(data_shape, "data");
  te::Tensor indices = Placeholder(indices_shape, "indices", ir::kInt32);
  absl::StatusOr<te::Tensor> out = nn::Take(data, indices, axis);
  if (!out.ok()) return KeyError(r, "axis", out.status());
  const int64_t n = data_shape[axis < 0 ? axis + rank : axis];
  return LogicalSignature{
      {SpecOf(data, "data"),
       SpecOf(indices, "indices", static_cast<double>(-n - 2), static_cast<double>(n + 2))},
      {SpecOf(*out, "out")}};
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
}

}  // namespace tessel::ops::logical
