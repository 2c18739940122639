// Gather, Slice and Split: rows of a tensor chosen at import. A known tensor is sliced here; a
// graph value goes through the take operator with the rows as a constant int32 index list (take
// clamps out-of-range indices, but these are checked here first).
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <limits>

#include "compiler/graph/onnx/converters.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

// The rows `rows` (in range) of `axis` of graph value x, by take.
ValueId TakeRows(NodeContext& c, ValueId x, int64_t axis, const std::vector<int64_t>& rows,
                 std::vector<int64_t> index_shape, const std::string& role) {
  const ValueId indices = c.NewConstant(absl::StrCat(role.empty() ? "take" : role, "_indices"),
                                        Int32Tensor(rows, std::move(index_shape)));
  return c.Op("take", {x, indices}, {{"axis", axis}}, role);
}

// Whether rows are 0..n-1 in order (the whole axis).
bool IsWholeAxis(const std::vector<int64_t>& rows, int64_t n) {
  if (static_cast<int64_t>(rows.size()) != n) return false;
  for (int64_t i = 0; i < n; ++i) {
    if (rows[i] != i) return false;
  }
  return true;
}

absl::Status ConvertGather(NodeContext& c) {
  const std::vector<int64_t> data_shape = c.Shape(0);
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis_attr, c.Int("axis", 0));
  absl::StatusOr<int64_t> axis = NormalizeAxis(axis_attr, data_shape.size(), "attribute 'axis'");
  if (!axis.ok()) return c.Invalid(std::string(axis.status().message()));
  const int64_t n = data_shape[*axis];
  if (!c.IsConstant(1)) {
    const DLDataType index_type = c.Type(1).dtype;
    if (!runtime::SameDLType(index_type, DLDataType{kDLInt, 32, 1}) &&
        !runtime::SameDLType(index_type, DLDataType{kDLInt, 64, 1})) {
      return c.Invalid(absl::StrCat("computed ", runtime::DLTypeToString(index_type),
                                    " indices (ONNX Gather takes int32 or int64)"));
    }
    if (c.Shape(1).empty()) return c.Unsupported("a computed scalar index");
    TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
    TESSEL_ASSIGN_OR_RETURN(const ValueId indices, c.Value(1));
    c.SetOutput(0, c.Op("take", {x, indices}, {{"axis", *axis}}));
    return absl::OkStatus();
  }
  TESSEL_ASSIGN_OR_RETURN(const NDArray idx_t, c.Constant(1, "indices"));
  absl::StatusOr<std::vector<int64_t>> idx = Int64Values(idx_t, "input 'indices'");
  if (!idx.ok()) return c.Invalid(std::string(idx.status().message()));
  for (int64_t& i : *idx) {
    if (i < -n || i >= n) {
      return c.Invalid(absl::StrCat("index ", i, " is out of range for axis ", *axis, " of ",
                                    c.Type(0).ToString()));
    }
    if (i < 0) i += n;
  }
  std::vector<int64_t> out_shape(data_shape.begin(), data_shape.begin() + *axis);
  for (int64_t e : idx_t.shape()) out_shape.push_back(e);
  out_shape.insert(out_shape.end(), data_shape.begin() + *axis + 1, data_shape.end());
  if (c.IsConstant(0)) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray data, c.Constant(0, "data"));
    absl::StatusOr<NDArray> rows = Rows(data, *axis, *idx, c.budget());
    if (!rows.ok()) return c.Annotate(rows.status());
    absl::StatusOr<NDArray> out = Reshaped(*rows, out_shape, c.budget());
    if (!out.ok()) return c.Annotate(out.status());
    c.SetOutput(0, *std::move(out));
    return absl::OkStatus();
  }
  if (idx->empty()) return c.Unsupported("an empty index list (a zero extent)");
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  std::vector<int64_t> index_shape = idx_t.shape();
  if (index_shape.empty()) index_shape = {1};  // a scalar index: take one row, drop the axis
  const ValueId y = TakeRows(c, x, *axis, *idx, index_shape, idx_t.shape().empty() ? "rows" : "");
  c.SetOutput(0, c.Reshape(y, out_shape, ""));
  return absl::OkStatus();
}

// Rows start, start + step, ... before end, with ONNX's clamping of start and end.
absl::StatusOr<std::vector<int64_t>> SliceRows(int64_t start, int64_t end, int64_t step,
                                               int64_t n) {
  if (step == 0) return absl::InvalidArgumentError("a step of 0");
  if (start < 0) start += n;
  if (end < 0) end += n;
  int64_t count = 0;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, 0, n);
    count = start < end ? (end - start - 1) / step + 1 : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, n - 1);
    end = std::clamp<int64_t>(end, -1, n - 1);
    const int64_t span = start - end;  // > 0 when any row is taken
    count = span <= 0                                     ? 0
            : step == std::numeric_limits<int64_t>::min() ? 1
                                                          : (span - 1) / -step + 1;
  }
  std::vector<int64_t> rows;
  for (int64_t k = 0; k < count; ++k) rows.push_back(start + k * step);
  return rows;
}

// Input i as a list of ints (an attribute before opset 10).
absl::StatusOr<std::vector<int64_t>> SliceArg(NodeContext& c, const std::string& name, int input,
                                              std::vector<int64_t> fallback) {
  if (c.opset() < 10) return c.Ints(name, std::move(fallback));
  if (!c.HasInput(input)) return fallback;
  TESSEL_ASSIGN_OR_RETURN(const NDArray t, c.Constant(input, name));
  absl::StatusOr<std::vector<int64_t>> v = Int64Values(t, absl::StrCat("input '", name, "'"));
  if (!v.ok()) return c.Invalid(std::string(v.status().message()));
  return v;
}

// Applies per-axis row lists to input 0 and sets output `out`.
absl::Status SetRows(NodeContext& c, int out,
                     const std::vector<std::pair<int64_t, std::vector<int64_t>>>& cuts,
                     const std::string& role) {
  if (c.IsConstant(0)) {
    TESSEL_ASSIGN_OR_RETURN(NDArray x, c.Constant(0, "data"));
    for (const auto& [axis, rows] : cuts) {
      absl::StatusOr<NDArray> y = Rows(x, axis, rows, c.budget());
      if (!y.ok()) return c.Annotate(y.status());
      x = *y;
    }
    c.SetOutput(out, x);
    return absl::OkStatus();
  }
  TESSEL_ASSIGN_OR_RETURN(ValueId x, c.Float32(0));
  std::vector<std::pair<int64_t, std::vector<int64_t>>> needed;
  for (const auto& [axis, rows] : cuts) {
    if (rows.empty()) return c.Unsupported("an empty slice (a zero extent)");
    if (!IsWholeAxis(rows, c.TypeOf(x).shape[axis])) needed.push_back({axis, rows});
  }
  if (needed.empty()) {
    c.SetOutput(out, x);
    return absl::OkStatus();
  }
  for (size_t k = 0; k < needed.size(); ++k) {
    const bool last = k + 1 == needed.size();
    const std::string r =
        last ? role : absl::StrCat(role.empty() ? "slice" : role, "_axis_", needed[k].first);
    x = TakeRows(c, x, needed[k].first, needed[k].second,
                 {static_cast<int64_t>(needed[k].second.size())}, r);
  }
  c.SetOutput(out, x);
  return absl::OkStatus();
}

absl::Status ConvertSlice(NodeContext& c) {
  const std::vector<int64_t> shape = c.Shape(0);
  const int64_t rank = static_cast<int64_t>(shape.size());
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> starts, SliceArg(c, "starts", 1, {}));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> ends, SliceArg(c, "ends", 2, {}));
  std::vector<int64_t> all_axes;
  for (size_t i = 0; i < starts.size(); ++i) all_axes.push_back(static_cast<int64_t>(i));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> axes, SliceArg(c, "axes", 3, all_axes));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> steps,
                          SliceArg(c, "steps", 4, std::vector<int64_t>(starts.size(), 1)));
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return c.Invalid("'starts', 'ends', 'axes' and 'steps' differ in length");
  }
  std::vector<bool> seen(rank, false);
  std::vector<std::pair<int64_t, std::vector<int64_t>>> cuts;
  for (size_t i = 0; i < starts.size(); ++i) {
    absl::StatusOr<int64_t> axis = NormalizeAxis(axes[i], rank, "axis");
    if (!axis.ok()) return c.Invalid(std::string(axis.status().message()));
    if (seen[*axis]) return c.Invalid(absl::StrCat("axis ", axes[i], " is repeated"));
    seen[*axis] = true;
    absl::StatusOr<std::vector<int64_t>> rows =
        SliceRows(starts[i], ends[i], steps[i], shape[*axis]);
    if (!rows.ok()) return c.Invalid(std::string(rows.status().message()));
    cuts.push_back({*axis, *std::move(rows)});
  }
  return SetRows(c, 0, cuts, "");
}

absl::Status ConvertSplit(NodeContext& c) {
  const std::vector<int64_t> shape = c.Shape(0);
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis_attr, c.Int("axis", 0));
  absl::StatusOr<int64_t> axis = NormalizeAxis(axis_attr, shape.size(), "attribute 'axis'");
  if (!axis.ok()) return c.Invalid(std::string(axis.status().message()));
  const int64_t n = shape[*axis];
  std::vector<int64_t> sizes;
  if (c.opset() < 13) {
    TESSEL_ASSIGN_OR_RETURN(sizes, c.Ints("split", {}));
    if (sizes.empty() && c.HasInput(1)) {  // opset 1 took it as an input
      TESSEL_ASSIGN_OR_RETURN(const NDArray t, c.Constant(1, "split"));
      absl::StatusOr<std::vector<int64_t>> v = Int64Values(t, "input 'split'");
      if (!v.ok()) return c.Invalid(std::string(v.status().message()));
      sizes = *v;
    }
  } else if (c.HasInput(1)) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray t, c.Constant(1, "split"));
    absl::StatusOr<std::vector<int64_t>> v = Int64Values(t, "input 'split'");
    if (!v.ok()) return c.Invalid(std::string(v.status().message()));
    sizes = *v;
  }
  const int64_t parts = c.NumOutputs();
  if (sizes.empty()) {
    // Equal parts; from opset 18 the last may be smaller.
    const int64_t each = (n + parts - 1) / parts;
    if (c.opset() < 18 && n % parts != 0) {
      return c.Invalid(absl::StrCat("axis ", *axis, " of extent ", n, " does not split into ",
                                    parts, " equal parts"));
    }
    for (int64_t i = 0, left = n; i < parts; ++i, left -= each)
      sizes.push_back(std::min(each, left));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0 || s > n)
      return c.Invalid(absl::StrCat("split sizes [", absl::StrJoin(sizes, ", "), "] are invalid"));
    total += s;
  }
  if (static_cast<int64_t>(sizes.size()) != parts || total != n) {
    return c.Invalid(absl::StrCat("split sizes [", absl::StrJoin(sizes, ", "), "] for ", parts,
                                  " outputs do not add up to the extent ", n));
  }
  int64_t offset = 0;
  for (int64_t i = 0; i < parts; ++i) {
    std::vector<int64_t> rows;
    for (int64_t r = 0; r < sizes[i]; ++r) rows.push_back(offset + r);
    offset += sizes[i];
    if (!c.OutputUsed(static_cast<int>(i))) continue;
    TESSEL_RETURN_IF_ERROR(
        SetRows(c, static_cast<int>(i), {{*axis, rows}}, i == 0 ? "" : absl::StrCat("output_", i)));
  }
  return absl::OkStatus();
}

}  // namespace

void AddGatherConverters(ConverterTable& table) {
  table["Gather"] = ConvertGather;
  table["Slice"] = ConvertSlice;
  table["Split"] = ConvertSplit;
}

}  // namespace tessel::graph::onnx::internal
