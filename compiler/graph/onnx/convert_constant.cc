// Operators evaluated at import: Constant, and the shape arithmetic exporters emit around Reshape
// and Flatten (Shape, Size, ConstantOfShape, Cast, Range, comparisons, Where) when their inputs
// are known. Shape needs only its input's type, which is always static here. Cast of a computed
// tensor is the graph's cast node, between the element types the operator converts.
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cmath>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/tensor_proto.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

absl::Status ConvertConstant(NodeContext& c) {
  if (c.HasAttr("value")) {
    TESSEL_ASSIGN_OR_RETURN(NDArray t, c.TensorAttr("value"));
    c.SetOutput(0, std::move(t));
  } else if (c.HasAttr("value_float")) {
    TESSEL_ASSIGN_OR_RETURN(const float f, c.Float("value_float", 0));
    c.SetOutput(0, Float32Tensor({f}, {}));
  } else if (c.HasAttr("value_floats")) {
    TESSEL_ASSIGN_OR_RETURN(const std::vector<float> f, c.Floats("value_floats"));
    c.SetOutput(0, Float32Tensor(f, {static_cast<int64_t>(f.size())}));
  } else if (c.HasAttr("value_int")) {
    TESSEL_ASSIGN_OR_RETURN(const int64_t i, c.Int("value_int", 0));
    c.SetOutput(0, Int64Tensor({i}, {}));
  } else if (c.HasAttr("value_ints")) {
    TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> i, c.Ints("value_ints", {}));
    c.SetOutput(0, Int64Tensor(i, {static_cast<int64_t>(i.size())}));
  } else {
    const std::string kind = c.node().attribute_size() > 0 ? c.node().attribute(0).name() : "none";
    return c.Unsupported(absl::StrCat("attribute '", kind, "'"));
  }
  return absl::OkStatus();
}

absl::Status ConvertShape(NodeContext& c) {
  const std::vector<int64_t> shape = c.Shape(0);
  const int64_t rank = static_cast<int64_t>(shape.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t start, c.Int("start", 0));
  TESSEL_ASSIGN_OR_RETURN(int64_t end, c.Int("end", rank));
  // opset 15: a slice of the shape, ends clamped.
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  const std::vector<int64_t> dims(shape.begin() + start, shape.begin() + end);
  c.SetOutput(0, Int64Tensor(dims, {static_cast<int64_t>(dims.size())}));
  return absl::OkStatus();
}

absl::Status ConvertSize(NodeContext& c) {
  c.SetOutput(0, Int64Tensor({c.Type(0).NumElements()}, {}));
  return absl::OkStatus();
}

absl::Status ConvertConstantOfShape(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const NDArray shape_t, c.Constant(0, "shape"));
  absl::StatusOr<std::vector<int64_t>> shape = Int64Values(shape_t, "input 'shape'");
  if (!shape.ok()) return c.Invalid(std::string(shape.status().message()));
  NDArray value = Float32Tensor({0.0f}, {1});
  if (c.HasAttr("value")) {
    TESSEL_ASSIGN_OR_RETURN(value, c.TensorAttr("value"));
  }
  absl::StatusOr<NDArray> out = Filled(*shape, value, c.budget());
  if (!out.ok()) return c.Annotate(out.status());
  c.SetOutput(0, *std::move(out));
  return absl::OkStatus();
}

// The element types of the graph's cast operator (OPERATORS.md).
bool IsCastOperatorType(DLDataType t) {
  return runtime::SameDLType(t, kFloat32) || runtime::SameDLType(t, DLDataType{kDLFloat, 64, 1}) ||
         runtime::SameDLType(t, DLDataType{kDLInt, 32, 1}) || runtime::SameDLType(t, kInt64);
}

// A known input is converted here (host_tensor.h's Cast); a computed one by a cast node.
absl::Status ConvertCast(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const int64_t to, c.Int("to", -1));
  absl::StatusOr<DLDataType> dtype = DLTypeOfOnnx(static_cast<int32_t>(to));
  if (!dtype.ok()) return c.Unsupported(absl::StrCat("attribute 'to' ", OnnxTypeName(to)));
  if (runtime::SameDLType(c.Type(0).dtype, *dtype)) {
    c.Forward(0, 0);
    return absl::OkStatus();
  }
  if (!c.IsConstant(0)) {
    const DLDataType from = c.Type(0).dtype;
    if (!IsCastOperatorType(from) || !IsCastOperatorType(*dtype)) {
      return c.Unsupported(absl::StrCat("a cast of a computed ", runtime::DLTypeToString(from),
                                        " tensor to ", OnnxTypeName(to),
                                        " (computed tensors convert between FLOAT, DOUBLE, "
                                        "INT32 and INT64)"));
    }
    TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Value(0));
    c.SetOutput(0, c.Op("cast", {x}, {{"to", runtime::DLTypeToString(*dtype)}}));
    return absl::OkStatus();
  }
  TESSEL_ASSIGN_OR_RETURN(const NDArray x, c.Constant(0, "input"));
  absl::StatusOr<NDArray> y = Cast(x, *dtype, c.budget());
  if (!y.ok()) return c.Annotate(y.status());
  c.SetOutput(0, *std::move(y));
  return absl::OkStatus();
}

// Range(start, limit, delta) of int64 or float32 scalars: ceil((limit - start) / delta) values.
absl::Status ConvertRange(NodeContext& c) {
  const DLDataType dtype = c.Type(0).dtype;
  const bool is_int = runtime::SameDLType(dtype, kInt64);
  if (!is_int && !runtime::SameDLType(dtype, kFloat32)) {
    return c.Unsupported(absl::StrCat("Range of ", runtime::DLTypeToString(dtype)));
  }
  std::vector<double> v;
  std::vector<int64_t> iv;
  for (int i = 0; i < 3; ++i) {
    const char* what = i == 0 ? "start" : i == 1 ? "limit" : "delta";
    TESSEL_ASSIGN_OR_RETURN(const NDArray t, c.Constant(i, what));
    absl::StatusOr<double> d = ScalarValue(t, absl::StrCat("input '", what, "'"));
    if (!d.ok()) return c.Invalid(std::string(d.status().message()));
    v.push_back(*d);
    if (is_int) {
      absl::StatusOr<std::vector<int64_t>> n = Int64Values(t, what);
      if (!n.ok()) return c.Invalid(std::string(n.status().message()));
      iv.push_back((*n)[0]);
    }
  }
  if (v[2] == 0) return c.Invalid("'delta' is zero");
  const double n = std::max(std::ceil((v[1] - v[0]) / v[2]), 0.0);
  if (!(n <= static_cast<double>(kMaxElements))) return c.Invalid("the range is too long");
  const int64_t count = static_cast<int64_t>(n);
  absl::StatusOr<NDArray> out = c.budget().Empty({count}, dtype, "range");
  if (!out.ok()) return c.Annotate(out.status());
  for (int64_t i = 0; i < count; ++i) {
    if (is_int) {
      int64_t step = 0, value = 0;
      if (__builtin_mul_overflow(i, iv[2], &step) || __builtin_add_overflow(iv[0], step, &value)) {
        return c.Invalid("the range overflows int64");
      }
      out->data<int64_t>()[i] = value;
    } else {
      out->data<float>()[i] = ToFloat(v[0] + static_cast<double>(i) * v[2]);
    }
  }
  c.SetOutput(0, *std::move(out));
  return absl::OkStatus();
}

absl::Status ConvertCompare(NodeContext& c, BinaryOp op) {
  TESSEL_ASSIGN_OR_RETURN(const NDArray a, c.Constant(0, "A"));
  TESSEL_ASSIGN_OR_RETURN(const NDArray b, c.Constant(1, "B"));
  absl::StatusOr<NDArray> y = Binary(op, a, b, c.budget());
  if (!y.ok()) return c.Annotate(y.status());
  c.SetOutput(0, *std::move(y));
  return absl::OkStatus();
}

absl::Status ConvertWhere(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const NDArray cond, c.Constant(0, "condition"));
  TESSEL_ASSIGN_OR_RETURN(const NDArray x, c.Constant(1, "X"));
  TESSEL_ASSIGN_OR_RETURN(const NDArray y, c.Constant(2, "Y"));
  absl::StatusOr<NDArray> out = Where(cond, x, y, c.budget());
  if (!out.ok()) return c.Annotate(out.status());
  c.SetOutput(0, *std::move(out));
  return absl::OkStatus();
}

}  // namespace

void AddConstantConverters(ConverterTable& table) {
  table["Constant"] = ConvertConstant;
  table["Shape"] = ConvertShape;
  table["Size"] = ConvertSize;
  table["ConstantOfShape"] = ConvertConstantOfShape;
  table["Cast"] = ConvertCast;
  table["Range"] = ConvertRange;
  table["Equal"] = [](NodeContext& c) { return ConvertCompare(c, BinaryOp::kEqual); };
  table["Less"] = [](NodeContext& c) { return ConvertCompare(c, BinaryOp::kLess); };
  table["Greater"] = [](NodeContext& c) { return ConvertCompare(c, BinaryOp::kGreater); };
  table["Where"] = ConvertWhere;
}

}  // namespace tessel::graph::onnx::internal
