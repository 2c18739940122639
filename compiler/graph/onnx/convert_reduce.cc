// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare,
// ReduceLogSum, ReduceLogSumExp: the axes from the attribute (before opset 13 for ReduceSum,
// before 18 for the others) or the optional second input, which must be known at import. No
// axes reduce every axis unless noop_with_empty_axes. The operator library reduces contiguous
// axes: other sets are transposed behind the kept axes first (then reduced without keepdims and
// reshaped to the kept shape when keepdims, which keeps the elements' order).
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/host_tensor.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

// The axes to reduce, normalized and ascending; empty when the node is a no-op.
absl::StatusOr<std::vector<int64_t>> ReducedAxes(NodeContext& c, int64_t rank,
                                                 int axes_input_opset) {
  std::vector<int64_t> axes;
  bool given = false;
  if (c.opset() < axes_input_opset) {
    given = c.HasAttr("axes");
    TESSEL_ASSIGN_OR_RETURN(axes, c.Ints("axes", {}));
  } else if (c.HasInput(1)) {
    given = true;
    if (!c.IsConstant(1)) return c.Unsupported("input 'axes' computed in the graph");
    TESSEL_ASSIGN_OR_RETURN(const runtime::NDArray k, c.Constant(1, "axes"));
    absl::StatusOr<std::vector<int64_t>> values = Int64Values(k, "input 'axes'");
    if (!values.ok()) return c.Invalid(std::string(values.status().message()));
    axes = *values;
  }
  if (!given || axes.empty()) {
    TESSEL_ASSIGN_OR_RETURN(const int64_t noop, c.Int("noop_with_empty_axes", 0));
    if (noop != 0) return std::vector<int64_t>{};
    axes.clear();
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    return axes;
  }
  for (int64_t& axis : axes) {
    absl::StatusOr<int64_t> normalized = NormalizeAxis(axis, rank, "axes");
    if (!normalized.ok()) return c.Invalid(std::string(normalized.status().message()));
    axis = *normalized;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    return c.Invalid("'axes' names an axis twice");
  }
  return axes;
}

Converter ConvertReduce(const char* op, int axes_input_opset) {
  return [op, axes_input_opset](NodeContext& c) -> absl::Status {
    TESSEL_ASSIGN_OR_RETURN(ValueId x, c.Float32(0));
    const std::vector<int64_t> shape = c.Shape(0);
    const int64_t rank = static_cast<int64_t>(shape.size());
    TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> axes,
                            ReducedAxes(c, rank, axes_input_opset));
    if (axes.empty()) {
      c.Forward(0, 0);
      return absl::OkStatus();
    }
    TESSEL_ASSIGN_OR_RETURN(const int64_t keepdims, c.Int("keepdims", 1));
    std::vector<int64_t> reduced_shape;  // the result's
    for (int64_t d = 0; d < rank; ++d) {
      const bool reduced = std::binary_search(axes.begin(), axes.end(), d);
      if (!reduced || keepdims != 0) reduced_shape.push_back(reduced ? 1 : shape[d]);
    }
    if (reduced_shape.empty()) {
      return c.Unsupported("a rank-0 result (every axis reduced without keepdims)");
    }
    const bool contiguous = axes.back() - axes.front() + 1 == static_cast<int64_t>(axes.size());
    if (contiguous) {
      c.SetOutput(0, c.Op(op, {x}, {{"axes", axes}, {"keepdims", keepdims != 0}}));
      return absl::OkStatus();
    }
    // Kept axes first, then the reduced ones, all in order.
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d) {
      if (!std::binary_search(axes.begin(), axes.end(), d)) perm.push_back(d);
    }
    const int64_t first_reduced = static_cast<int64_t>(perm.size());
    perm.insert(perm.end(), axes.begin(), axes.end());
    std::vector<int64_t> trailing;
    for (int64_t d = first_reduced; d < rank; ++d) trailing.push_back(d);
    x = c.Op("transpose", {x}, {{"axes", perm}}, "reduced_axes_last");
    const ValueId y =
        c.Op(op, {x}, {{"axes", trailing}, {"keepdims", false}}, keepdims != 0 ? "reduced" : "");
    c.SetOutput(0, keepdims != 0 ? c.Reshape(y, reduced_shape, "keepdims") : y);
    return absl::OkStatus();
  };
}

}  // namespace

void AddReduceConverters(ConverterTable& table) {
  table["ReduceSum"] = ConvertReduce("reduce_sum", 13);
  table["ReduceMean"] = ConvertReduce("reduce_mean", 18);
  table["ReduceMax"] = ConvertReduce("reduce_max", 18);
  table["ReduceMin"] = ConvertReduce("reduce_min", 18);
  table["ReduceProd"] = ConvertReduce("reduce_prod", 18);
  table["ReduceL1"] = ConvertReduce("reduce_l1", 18);
  table["ReduceL2"] = ConvertReduce("reduce_l2", 18);
  table["ReduceSumSquare"] = ConvertReduce("reduce_sum_square", 18);
  table["ReduceLogSum"] = ConvertReduce("reduce_log_sum", 18);
  table["ReduceLogSumExp"] = ConvertReduce("reduce_log_sum_exp", 18);
}

}  // namespace tessel::graph::onnx::internal
