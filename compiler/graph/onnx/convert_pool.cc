// MaxPool, AveragePool (2-D; 1-D as 2-D of height 1; 3-D as two 2-D poolings; MaxPool with
// dilations by gathered windows) and GlobalAveragePool / GlobalMaxPool (any number of spatial
// axes, flattened to one).
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <limits>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/window.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

// The output extents of the window over `in`, after checking that the operator library's pooling
// (torch's) computes ONNX's windows; `ceil_matters` tells whether ceil_mode changes any extent.
// ONNX 1.12 gives ceil_mode outputs 1 + ceil((padded - span) / s); torch drops a last window that
// would start in the end padding.
struct PoolExtents {
  std::vector<int64_t> out;
  bool ceil_matters = false;
};

absl::StatusOr<PoolExtents> CheckWindows(NodeContext& c, const std::vector<int64_t>& in,
                                         const Window& win, bool ceil_mode, bool avg,
                                         bool count_include_pad) {
  PoolExtents extents;
  for (size_t axis = 0; axis < in.size(); ++axis) {
    const int64_t k = win.kernel[axis], s = win.stride[axis], span = win.span(axis);
    if (win.pad_before(axis) >= k || win.pad_after(axis) >= k) {
      return c.Unsupported(absl::StrCat("pads [", absl::StrJoin(win.pad, ", "),
                                        "] not smaller than the kernel [",
                                        absl::StrJoin(win.kernel, ", "), "]"));
    }
    const int64_t padded = in[axis] + win.pad_before(axis) + win.pad_after(axis);
    if (padded < span) {
      return c.Invalid(absl::StrCat("the kernel [", absl::StrJoin(win.kernel, ", "),
                                    "] exceeds the padded input"));
    }
    const int64_t floor_out = (padded - span) / s + 1;
    int64_t out = floor_out;
    if (ceil_mode) {
      out = 1 + (padded - span + s - 1) / s;
      if ((out - 1) * s >= in[axis] + win.pad_before(axis)) {
        return c.Unsupported(
            "attribute 'ceil_mode' 1 where a last window starts in the padding (ONNX keeps it, "
            "the operator library drops it)");
      }
      if (out != floor_out) extents.ceil_matters = true;
    }
    extents.out.push_back(out);
  }
  if (extents.ceil_matters && avg && count_include_pad) {
    return c.Unsupported(
        "attributes 'ceil_mode' 1 with 'count_include_pad' 1 where a window passes the padding");
  }
  return extents;
}

// One 2-D pooling of x (4-D) with `win` (2 axes).
ValueId Pool2d(NodeContext& c, ValueId x, const Window& win, bool avg, bool ceil,
               bool count_include_pad, const std::string& role) {
  nlohmann::json attrs = {{"kh", win.kernel[0]},
                          {"kw", win.kernel[1]},
                          {"stride", win.stride},
                          {"pad", win.pad},
                          {"ceil_mode", ceil}};
  if (avg) attrs["count_include_pad"] = count_include_pad;
  return c.Op(avg ? "avg_pool2d" : "max_pool2d", {x}, attrs, role);
}

// A max pooling with dilations, one spatial axis after another (a maximum over a box is the
// maximum over each axis in turn): the axis padded with the lowest float as far as the last
// window reaches, the windows gathered by a take of indices [K, O] (o * stride + k * dilation),
// and the maximum over K.
ValueId DilatedMaxPool(NodeContext& c, ValueId x, std::vector<int64_t> shape, const Window& win,
                       const std::vector<int64_t>& out) {
  for (size_t axis = 0; axis < win.axes(); ++axis) {
    const int64_t k = win.kernel[axis], s = win.stride[axis], d = win.dilation[axis];
    const int64_t dim = static_cast<int64_t>(axis) + 2;
    if (k == 1 && s == 1 && win.pad_before(axis) == 0) continue;
    const int64_t reach = (out[axis] - 1) * s + win.span(axis);
    const int64_t after = std::max<int64_t>(0, reach - shape[dim] - win.pad_before(axis));
    if (win.pad_before(axis) > 0 || after > 0) {
      std::vector<int64_t> before_pads(shape.size(), 0), after_pads(shape.size(), 0);
      before_pads[dim] = win.pad_before(axis);
      after_pads[dim] = after;
      x = c.Op("pad", {x},
               {{"pad_before", before_pads},
                {"pad_after", after_pads},
                {"value", std::numeric_limits<float>::lowest()}},
               absl::StrCat("pad_axis", axis));
    }
    std::vector<int64_t> rows;
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t o = 0; o < out[axis]; ++o) rows.push_back(o * s + j * d);
    }
    const ValueId windows = c.Op(
        "take",
        {x, c.NewConstant(absl::StrCat("windows_axis", axis), Int32Tensor(rows, {k, out[axis]}))},
        {{"axis", dim}}, absl::StrCat("windows_axis", axis));
    x = c.Op("reduce_max", {windows}, {{"axes", {dim}}, {"keepdims", false}},
             absl::StrCat("max_axis", axis));
    shape[dim] = out[axis];
  }
  return x;
}

absl::Status ConvertPool(NodeContext& c, bool avg) {
  if (c.OutputUsed(1)) return c.Unsupported("output 'Indices'");
  const std::vector<int64_t> x_shape = c.Shape(0);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> in, SpatialExtents(c, x_shape, "pooling", 3));
  TESSEL_ASSIGN_OR_RETURN(const Window win, ReadWindow(c, in, {}, true));
  const bool dilated = win.dilation != std::vector<int64_t>(in.size(), 1);
  if (dilated && avg) {
    return c.Unsupported(absl::StrCat("attribute 'dilations' [", absl::StrJoin(win.dilation, ", "),
                                      "] of an average pool"));
  }
  TESSEL_ASSIGN_OR_RETURN(const int64_t ceil_mode, c.Int("ceil_mode", 0));
  TESSEL_ASSIGN_OR_RETURN(const int64_t count_include_pad, c.Int("count_include_pad", 0));
  TESSEL_ASSIGN_OR_RETURN(const PoolExtents extents,
                          CheckWindows(c, in, win, ceil_mode != 0, avg, count_include_pad != 0));
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  if (dilated) {
    c.SetOutput(0, DilatedMaxPool(c, x, x_shape, win, extents.out));
    return absl::OkStatus();
  }
  const bool ceil = extents.ceil_matters, include_pad = count_include_pad != 0;
  if (in.size() < 3) {
    ValueId y =
        Pool2d(c, c.Reshape(x, As2d(x_shape), "input_2d"), win.Plane(), avg, ceil, include_pad, "");
    c.SetOutput(0, c.Reshape(y,
                             x_shape.size() == 3
                                 ? std::vector<int64_t>{x_shape[0], x_shape[1], extents.out[0]}
                                 : std::vector<int64_t>{x_shape[0], x_shape[1], extents.out[0],
                                                        extents.out[1]},
                             "output_1d"));
    return absl::OkStatus();
  }
  // 3-D: a box's maximum or average is that over height and width, then over depth (an average's
  // count is the product of the axes' counts), so two 2-D poolings: the planes, with depth among
  // the channels, then depth, with the planes flattened into a width the window leaves alone.
  const int64_t n = x_shape[0], ch = x_shape[1], d = x_shape[2];
  const int64_t oh = extents.out[1], ow = extents.out[2];
  const ValueId planes = Pool2d(c, c.Reshape(x, {n, ch * d, x_shape[3], x_shape[4]}, "planes"),
                                win.Plane(), avg, ceil, include_pad, "pool_planes");
  const Window depth{.kernel = {win.kernel[0], 1},
                     .stride = {win.stride[0], 1},
                     .dilation = {1, 1},
                     .pad = {win.pad_before(0), 0, win.pad_after(0), 0}};
  const ValueId y = Pool2d(c, c.Reshape(planes, {n, ch, d, oh * ow}, "by_depth"), depth, avg, ceil,
                           include_pad, "pool_depth");
  c.SetOutput(0, c.Reshape(y, {n, ch, extents.out[0], oh, ow}, "output_3d"));
  return absl::OkStatus();
}

absl::Status ConvertGlobalPool(NodeContext& c, bool avg) {
  const std::vector<int64_t> x_shape = c.Shape(0);
  if (x_shape.size() < 3) {
    return c.Invalid(
        absl::StrCat("the input ", c.Type(0).ToString(), " needs N, C and spatial axes"));
  }
  int64_t spatial = 1;
  for (size_t d = 2; d < x_shape.size(); ++d) spatial *= x_shape[d];
  // The mean or max over all spatial elements is the same over one axis holding them all.
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  const std::vector<int64_t> x4 =
      x_shape.size() == 4 ? x_shape : std::vector<int64_t>{x_shape[0], x_shape[1], spatial, 1};
  ValueId y = c.Op(avg ? "global_avg_pool2d" : "global_max_pool2d", {c.Reshape(x, x4, "input_2d")});
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
