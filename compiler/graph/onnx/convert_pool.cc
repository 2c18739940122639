// MaxPool, AveragePool (2-D; 1-D as 2-D of height 1) and GlobalAveragePool / GlobalMaxPool (any
// number of spatial axes, flattened to one).
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/window.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

// Checks that the operator library's pooling (torch's) computes ONNX's windows, and whether
// ceil_mode changes anything. ONNX 1.12 gives ceil_mode outputs 1 + ceil((padded - k) / s);
// torch drops a last window that would start in the end padding.
absl::StatusOr<bool> CheckWindows(NodeContext& c, const std::vector<int64_t>& in2d,
                                  const Window2d& win, bool ceil_mode, bool avg,
                                  bool count_include_pad) {
  bool ceil_matters = false;
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t k = win.kernel[axis], s = win.stride[axis];
    const int64_t before = win.pad[axis], after = win.pad[axis + 2];
    if (before >= k || after >= k) {
      return c.Unsupported(absl::StrCat("pads [", absl::StrJoin(win.pad, ", "),
                                        "] not smaller than the kernel [",
                                        absl::StrJoin(win.kernel, ", "), "]"));
    }
    const int64_t padded = in2d[axis] + before + after;
    if (padded < k) {
      return c.Invalid(absl::StrCat("the kernel [", absl::StrJoin(win.kernel, ", "),
                                    "] exceeds the padded input"));
    }
    const int64_t floor_out = (padded - k) / s + 1;
    if (!ceil_mode) continue;
    const int64_t onnx_out = 1 + (padded - k + s - 1) / s;
    int64_t torch_out = onnx_out;
    if ((torch_out - 1) * s >= in2d[axis] + before) --torch_out;
    if (torch_out != onnx_out) {
      return c.Unsupported(
          "attribute 'ceil_mode' 1 where a last window starts in the padding (ONNX keeps it, "
          "the operator library drops it)");
    }
    if (onnx_out != floor_out) ceil_matters = true;
  }
  if (ceil_matters && avg && count_include_pad) {
    return c.Unsupported(
        "attributes 'ceil_mode' 1 with 'count_include_pad' 1 where a window passes the padding");
  }
  return ceil_matters;
}

absl::Status ConvertPool(NodeContext& c, bool avg) {
  if (c.OutputUsed(1)) return c.Unsupported("output 'Indices'");
  const std::vector<int64_t> x_shape = c.Shape(0);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> in, SpatialExtents(c, x_shape, "pooling"));
  TESSEL_ASSIGN_OR_RETURN(const Window2d win, ReadWindow(c, in, {}, true));
  if (win.dilation != std::vector<int64_t>{1, 1}) {
    return c.Unsupported(absl::StrCat("attribute 'dilations' [",
                                      absl::StrJoin(win.dilation, ", "), "]"));
  }
  TESSEL_ASSIGN_OR_RETURN(const int64_t ceil_mode, c.Int("ceil_mode", 0));
  TESSEL_ASSIGN_OR_RETURN(const int64_t count_include_pad, c.Int("count_include_pad", 0));
  const std::vector<int64_t> x4 = As2d(x_shape);
  TESSEL_ASSIGN_OR_RETURN(const bool ceil,
                          CheckWindows(c, {x4[2], x4[3]}, win, ceil_mode != 0, avg,
                                       count_include_pad != 0));
  nlohmann::json attrs = {{"kh", win.kernel[0]},
                          {"kw", win.kernel[1]},
                          {"stride", win.stride},
                          {"pad", win.pad},
                          {"ceil_mode", ceil}};
  if (avg) attrs["count_include_pad"] = count_include_pad != 0;
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  ValueId y = c.Op(avg ? "avg_pool2d" : "max_pool2d", {c.Reshape(x, x4, "input_2d")}, attrs);
  if (x_shape.size() == 3 && y != kInvalid) {
    const std::vector<int64_t>& s = c.TypeOf(y).shape;
    y = c.Reshape(y, {s[0], s[1], s[3]}, "output_1d");
  }
  c.SetOutput(0, y);
  return absl::OkStatus();
}

absl::Status ConvertGlobalPool(NodeContext& c, bool avg) {
  const std::vector<int64_t> x_shape = c.Shape(0);
  if (x_shape.size() < 3) {
    return c.Invalid(absl::StrCat("the input ", c.Type(0).ToString(),
                                  " needs N, C and spatial axes"));
  }
  int64_t spatial = 1;
  for (size_t d = 2; d < x_shape.size(); ++d) spatial *= x_shape[d];
  // The mean or max over all spatial elements is the same over one axis holding them all.
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  const std::vector<int64_t> x4 =
      x_shape.size() == 4 ? x_shape : std::vector<int64_t>{x_shape[0], x_shape[1], spatial, 1};
  ValueId y = c.Op(avg ? "global_avg_pool2d" : "global_max_pool2d",
                   {c.Reshape(x, x4, "input_2d")});
  std::vector<int64_t> out = {x_shape[0], x_shape[1]};
  out.resize(x_shape.size(), 1);
  c.SetOutput(0, c.Reshape(y, out, "output"));
  return absl::OkStatus();
}

}  // namespace

void AddPoolConverters(ConverterTable& table) {
  table["MaxPool"] = [](NodeContext& c) { return ConvertPool(c, false); };
  table["AveragePool"] = [](NodeContext& c) { return ConvertPool(c, true); };
  table["GlobalAveragePool"] = [](NodeContext& c) { return ConvertGlobalPool(c, true); };
  table["GlobalMaxPool"] = [](NodeContext& c) { return ConvertGlobalPool(c, false); };
}

}  // namespace tessel::graph::onnx::internal
