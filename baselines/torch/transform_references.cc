// Broadcasting elementwise operators and the data movement operators: concatenate, reshape,
// flatten, transpose, pad, layout_transform, take; and cast.
#include <ATen/ATen.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "baselines/torch/inputs.h"
#include "baselines/torch/layout.h"
#include "baselines/torch/reference_ops.h"
#include "baselines/torch/torch_convert.h"
#include "compiler/ir/dl_type.h"
#include "compiler/ops/nn/cast.h"
#include "compiler/ops/nn/take.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

using runtime::NDArray;

int64_t Product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  return std::accumulate(v.begin() + begin, v.begin() + end, int64_t{1}, std::multiplies<>());
}

// An axis in [-rank, rank) as a non-negative index.
absl::StatusOr<int64_t> ReadAxis(const ops::ArgReader& reader, const std::string& key,
                                 int64_t rank) {
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis, reader.Int(key, -rank));
  if (axis >= rank) {
    return reader.Error(absl::StrCat("argument '", key, "' must be below the rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

Outputs Binary(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> a_shape, reader.Ints("a_shape", -1));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> b_shape, reader.Ints("b_shape", -1));
  // numpy broadcasting: align the trailing dimensions; each pair equal or one of them 1.
  for (size_t i = 1; i <= std::min(a_shape.size(), b_shape.size()); ++i) {
    const int64_t x = a_shape[a_shape.size() - i], y = b_shape[b_shape.size() - i];
    if (x != y && x != 1 && y != 1) {
      return reader.Error(absl::StrCat("arguments 'a_shape' ", ShapeString(a_shape),
                                       " and 'b_shape' ", ShapeString(b_shape),
                                       " do not broadcast"));
    }
  }
  TESSEL_ASSIGN_OR_RETURN(const std::string dtype_text, reader.StringOr("dtype", "float32"));
  const absl::StatusOr<DLDataType> dtype = runtime::ParseDLType(dtype_text);
  if (!dtype.ok()) return reader.ErrorIn("dtype", dtype.status());
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"a", a_shape, *dtype}, {"b", b_shape, *dtype}}));
  const at::Tensor a = ToTorch(inputs[0]), b = ToTorch(inputs[1]);
  at::Tensor out;
  if (op == "add") {
    out = at::add(a, b);
  } else if (op == "subtract") {
    out = at::sub(a, b);
  } else if (op == "multiply") {
    out = at::mul(a, b);
  } else if (op == "divide") {
    out = at::div(a, b);
  } else if (op == "maximum") {
    out = at::maximum(a, b);
  } else if (op == "minimum") {
    out = at::minimum(a, b);
  } else {
    TESSEL_CHECK(op == "power") << op;
    out = at::pow(a, b);
  }
  return std::vector<NDArray>{FromTorch(out)};
}

Outputs Concatenate(const std::string& op, const ops::OpArgs& args,
                    const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  const auto shapes_error = [&] {
    return reader.Error(absl::StrCat(
        "argument 'shapes' must be a non-empty list of shapes of one rank (lists of integers "
        ">= 1), got ",
        args.is_object() && args.contains("shapes") ? args.at("shapes").dump() : "nothing"));
  };
  if (!args.is_object() || !args.contains("shapes") || !args.at("shapes").is_array() ||
      args.at("shapes").empty()) {
    return shapes_error();
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const ops::OpArgs& s : args.at("shapes")) {
    ops::OpArgs one = {{"shape", s}};
    absl::StatusOr<std::vector<int64_t>> shape = ops::ArgReader(op, one).Ints("shape", -1);
    if (!shape.ok() || (!shapes.empty() && shape->size() != shapes[0].size())) {
      return shapes_error();
    }
    shapes.push_back(*shape);
  }
  const int64_t rank = static_cast<int64_t>(shapes[0].size());
  if (rank == 0) return shapes_error();
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis, ReadAxis(reader, "axis", rank));
  std::vector<InputSpec> specs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && shapes[i][d] != shapes[0][d]) {
        return reader.Error(absl::StrCat("argument 'shapes' entry ", i, " ", ShapeString(shapes[i]),
                                         " differs from ", ShapeString(shapes[0]), " off the axis ",
                                         axis));
      }
    }
    specs.push_back({absl::StrCat("x", i), shapes[i]});
  }
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, specs));
  std::vector<at::Tensor> xs;
  for (const NDArray& x : inputs) xs.push_back(ToTorch(x));
  return std::vector<NDArray>{FromTorch(at::cat(xs, axis))};
}

Outputs Reshape(const std::string& op, const ops::OpArgs& args,
                const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> newshape, reader.Ints("newshape", -1, -1));
  const int64_t total = Product(shape, 0, shape.size());
  const auto inferred = std::find(newshape.begin(), newshape.end(), -1);
  if (std::count(newshape.begin(), newshape.end(), -1) > 1 ||
      std::count(newshape.begin(), newshape.end(), 0) > 0) {
    return reader.Error("argument 'newshape' entries must be >= 1, except one that may be -1");
  }
  if (inferred != newshape.end()) {
    const int64_t known = -Product(newshape, 0, newshape.size());
    if (total % known != 0) {
      return reader.Error(absl::StrCat("argument 'newshape' ", ShapeString(newshape),
                                       " cannot hold ", total, " elements"));
    }
    *inferred = total / known;
  }
  if (Product(newshape, 0, newshape.size()) != total) {
    return reader.Error(absl::StrCat("argument 'newshape' ", ShapeString(newshape), " holds ",
                                     Product(newshape, 0, newshape.size()), " elements, 'shape' ",
                                     total));
  }
  // Elements of any type cast has (float32 unless `dtype` says otherwise).
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType type, ops::nn::CastElementTypeOr(reader, "dtype"));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape, ir::ToDLType(type)}}));
  return std::vector<NDArray>{FromTorch(ToTorch(inputs[0]).reshape(newshape))};
}

Outputs Flatten(const std::string& op, const ops::OpArgs& args,
                const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis, reader.IntOr("axis", 1, 0));
  if (axis > static_cast<int64_t>(shape.size())) {
    return reader.Error(absl::StrCat("argument 'axis' must be at most the rank ", shape.size()));
  }
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape}}));
  const std::vector<int64_t> out = {Product(shape, 0, axis), Product(shape, axis, shape.size())};
  return std::vector<NDArray>{FromTorch(ToTorch(inputs[0]).reshape(out))};
}

Outputs Transpose(const std::string& op, const ops::OpArgs& args,
                  const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  const int64_t rank = static_cast<int64_t>(shape.size());
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                          reader.Ints("axes", static_cast<int>(rank), -rank));
  std::vector<bool> seen(rank, false);
  for (int64_t& a : axes) {
    if (a < 0) a += rank;
    if (a >= rank || seen[a]) {
      return reader.Error(absl::StrCat("argument 'axes' must be a permutation of 0..", rank - 1));
    }
    seen[a] = true;
  }
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape}}));
  return std::vector<NDArray>{FromTorch(ToTorch(inputs[0]).permute(axes))};
}

Outputs Pad(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  const int rank = static_cast<int>(shape.size());
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> before, reader.Ints("pad_before", rank, 0));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> after, reader.Ints("pad_after", rank, 0));
  TESSEL_ASSIGN_OR_RETURN(const double value, reader.FloatOr("value", 0.0));
  const absl::StatusOr<std::string> mode = reader.StringOr("mode", "constant");
  if (!mode.ok()) return mode.status();
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape}}));
  if (*mode == "edge" || *mode == "reflect") {
    // Each padded dimension gathered by the source index of every output position.
    at::Tensor out = ToTorch(inputs[0]);
    for (int d = 0; d < rank; ++d) {
      if (before[d] == 0 && after[d] == 0) continue;
      const int64_t n = shape[d];
      if (*mode == "reflect" && std::max(before[d], after[d]) >= n) {
        return reader.Error(absl::StrCat("reflect pads of dimension ", d, " must be below ", n));
      }
      std::vector<int64_t> source;
      for (int64_t i = -before[d]; i < n + after[d]; ++i) {
        int64_t j = i;
        if (*mode == "edge") {
          j = std::clamp<int64_t>(i, 0, n - 1);
        } else if (i < 0) {
          j = -i;
        } else if (i >= n) {
          j = 2 * (n - 1) - i;
        }
        source.push_back(j);
      }
      out = out.index_select(d, at::tensor(source, at::kLong));
    }
    return std::vector<NDArray>{FromTorch(out.contiguous())};
  }
  if (*mode != "constant") return reader.Error("argument 'mode' must be constant, edge or reflect");
  std::vector<int64_t> amounts;  // constant_pad_nd: the last dimension first
  for (int d = rank - 1; d >= 0; --d) {
    amounts.push_back(before[d]);
    amounts.push_back(after[d]);
  }
  return std::vector<NDArray>{FromTorch(at::constant_pad_nd(ToTorch(inputs[0]), amounts, value))};
}

Outputs LayoutTransform(const std::string& op, const ops::OpArgs& args,
                        const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  TESSEL_ASSIGN_OR_RETURN(const std::string src, reader.String("src"));
  TESSEL_ASSIGN_OR_RETURN(const std::string dst, reader.String("dst"));
  TESSEL_ASSIGN_OR_RETURN(const LayoutPlan plan, PlanLayoutTransform(op, shape, src, dst));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape}}));
  const at::Tensor out = ToTorch(inputs[0])
                             .permute(plan.to_grouped)
                             .reshape(plan.primal)
                             .permute(plan.to_dst_primal)
                             .reshape(plan.dst_grouped)
                             .permute(plan.to_dst);
  return std::vector<NDArray>{FromTorch(out)};
}

// Indices below 0 count from the end; the result is clamped into [0, n - 1] (OPERATORS.md).
Outputs Take(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> data_shape, reader.Ints("data_shape", -1));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> indices_shape,
                          reader.Ints("indices_shape", -1));
  if (data_shape.empty()) return reader.Error("argument 'data_shape' must not be empty");
  if (indices_shape.empty()) return reader.Error("argument 'indices_shape' must not be empty");
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, reader.IntOr("axis", 0, -rank));
  if (axis >= rank) {
    return reader.Error(
        absl::StrCat("argument 'axis' must be below the rank ", rank, " of 'data_shape'"));
  }
  if (axis < 0) axis += rank;
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType index_type, ops::nn::TakeIndexType(reader));
  TESSEL_RETURN_IF_ERROR(CheckInputs(
      op, inputs, {{"data", data_shape}, {"indices", indices_shape, ir::ToDLType(index_type)}}));
  const int64_t n = data_shape[axis];
  at::Tensor k = ToTorch(inputs[1]).to(at::kLong).flatten();
  k = at::where(k < 0, k + n, k).clamp(0, n - 1);
  std::vector<int64_t> out_shape(data_shape.begin(), data_shape.begin() + axis);
  out_shape.insert(out_shape.end(), indices_shape.begin(), indices_shape.end());
  out_shape.insert(out_shape.end(), data_shape.begin() + axis + 1, data_shape.end());
  return std::vector<NDArray>{
      FromTorch(ToTorch(inputs[0]).index_select(axis, k).reshape(out_shape))};
}

// torch's conversion: floats to integers truncate toward zero, int64 to int32 keeps the low bits,
// to a float rounds to nearest (OPERATORS.md).
Outputs Cast(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType from, ops::nn::CastElementType(reader, "from"));
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType to, ops::nn::CastElementType(reader, "to"));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape, ir::ToDLType(from)}}));
  const at::ScalarType type = to == ir::kFloat32   ? at::kFloat
                              : to == ir::kFloat64 ? at::kDouble
                              : to == ir::kInt32   ? at::kInt
                                                   : at::kLong;
  return std::vector<NDArray>{FromTorch(ToTorch(inputs[0]).to(type).contiguous())};
}

}  // namespace

std::vector<ReferenceEntry> TransformReferences() {
  return {{"add", Binary},
          {"subtract", Binary},
          {"multiply", Binary},
          {"divide", Binary},
          {"power", Binary},
          {"maximum", Binary},
          {"minimum", Binary},
          {"concatenate", Concatenate},
          {"reshape", Reshape},
          {"flatten", Flatten},
          {"transpose", Transpose},
          {"pad", Pad},
          {"layout_transform", LayoutTransform},
          {"take", Take},
          {"cast", Cast}};
}

}  // namespace tessel::baselines::internal
