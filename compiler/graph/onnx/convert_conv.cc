// Conv and ConvTranspose: 2-D directly, 1-D as 2-D of height 1 (the input reshaped to
// [n, c, 1, l] and back), 3-D Conv as one 2-D convolution over depth windows gathered at run time
// (below); the bias is an add of a [c, 1, ...] tensor.
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/window.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

// The weight (input 1) with its spatial axes made 2-D.
absl::StatusOr<ValueId> Weight2d(NodeContext& c) {
  const std::vector<int64_t> shape = c.Shape(1);
  if (shape.size() == 4) return c.Float32(1);
  return c.Float32Reshaped(1, As2d(shape), "weight");
}

// y plus the bias (input 2, [channels]) along axis 1 of y, of rank `rank`.
absl::StatusOr<ValueId> AddBias(NodeContext& c, ValueId y, int64_t channels, size_t rank) {
  if (!c.HasInput(2)) return y;
  if (c.Shape(2) != std::vector<int64_t>{channels}) {
    return c.Invalid(
        absl::StrCat("the bias must have shape [", channels, "], got ", c.Type(2).ToString()));
  }
  std::vector<int64_t> shape(rank - 1, 1);
  shape[0] = channels;
  TESSEL_ASSIGN_OR_RETURN(const ValueId bias, c.Float32Reshaped(2, shape, "bias"));
  return c.Op("add", {y, bias}, {}, "bias");
}

// A 3-D convolution as a 2-D one. Depth windows are gathered into the channels: with x padded
// along depth, X[n * OD + od, c * KD + kd, h, w] = x[n, c, od * sd + kd * dd, h, w] (a take of
// indices [KD, OD] on the depth axis, then a transpose), and the weight [O, C/g, KD, KH, KW] read
// as [O, C/g * KD, KH, KW] is the matching 2-D weight (a group's channels stay contiguous). The
// 2-D convolution [N * OD, O, OH, OW] is then laid back as [N, O, OD, OH, OW]. It computes the 3-D
// convolution's multiply-adds and no more; the gather copies the input KD / sd times.
absl::StatusOr<ValueId> Conv3d(NodeContext& c, const Window& win, int64_t groups) {
  const std::vector<int64_t> x_shape = c.Shape(0), w_shape = c.Shape(1);
  const int64_t n = x_shape[0], ch = x_shape[1], d = x_shape[2], h = x_shape[3], w = x_shape[4];
  const int64_t kd = w_shape[2], sd = win.stride[0], dd = win.dilation[0];
  const int64_t padded = d + win.pad_before(0) + win.pad_after(0);
  if (padded < win.span(0)) {
    return c.Invalid(absl::StrCat("the kernel's depth ", kd, " (dilated ", win.span(0),
                                  ") exceeds the padded input depth ", padded));
  }
  const int64_t od = (padded - win.span(0)) / sd + 1;
  TESSEL_ASSIGN_OR_RETURN(ValueId x, c.Float32(0));
  if (win.pad_before(0) > 0 || win.pad_after(0) > 0) {
    x = c.Op("pad", {x},
             {{"pad_before", {0, 0, win.pad_before(0), 0, 0}},
              {"pad_after", {0, 0, win.pad_after(0), 0, 0}}},
             "pad_depth");
  }
  std::vector<int64_t> rows;
  for (int64_t k = 0; k < kd; ++k) {
    for (int64_t o = 0; o < od; ++o) rows.push_back(o * sd + k * dd);
  }
  const ValueId windows =
      c.Op("take", {x, c.NewConstant("depth_indices", Int32Tensor(rows, {kd, od}))}, {{"axis", 2}},
           "depth_windows");
  const ValueId moved =
      c.Op("transpose", {windows}, {{"axes", {0, 3, 1, 2, 4, 5}}}, "depth_to_batch");
  TESSEL_ASSIGN_OR_RETURN(
      const ValueId weight,
      c.Float32Reshaped(1, {w_shape[0], w_shape[1] * kd, w_shape[3], w_shape[4]}, "weight"));
  const Window plane = win.Plane();
  const ValueId y = c.Op("conv2d", {c.Reshape(moved, {n * od, ch * kd, h, w}, "input_2d"), weight},
                         {{"stride", plane.stride},
                          {"pad", plane.pad},
                          {"dilation", plane.dilation},
                          {"groups", groups}});
  if (y == kInvalid) return y;
  const std::vector<int64_t>& s = c.TypeOf(y).shape;
  return c.Op("transpose", {c.Reshape(y, {n, od, s[1], s[2], s[3]}, "output_by_depth")},
              {{"axes", {0, 2, 1, 3, 4}}}, "output_3d");
}

absl::Status ConvertConv(NodeContext& c) {
  const std::vector<int64_t> x_shape = c.Shape(0), w_shape = c.Shape(1);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> in,
                          SpatialExtents(c, x_shape, "convolution", 3));
  if (w_shape.size() != x_shape.size()) {
    return c.Invalid(absl::StrCat("the weight ", c.Type(1).ToString(), " and the input ",
                                  c.Type(0).ToString(), " differ in rank"));
  }
  TESSEL_ASSIGN_OR_RETURN(
      const Window win,
      ReadWindow(c, in, std::vector<int64_t>(w_shape.begin() + 2, w_shape.end()), true));
  TESSEL_ASSIGN_OR_RETURN(const int64_t groups, c.Int("group", 1));
  if (groups < 1) return c.Invalid("attribute 'group' must be >= 1");
  ValueId y = kInvalid;
  if (in.size() == 3) {
    TESSEL_ASSIGN_OR_RETURN(y, Conv3d(c, win, groups));
  } else {
    TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
    TESSEL_ASSIGN_OR_RETURN(const ValueId w, Weight2d(c));
    const Window plane = win.Plane();
    y = c.Op("conv2d", {c.Reshape(x, As2d(x_shape), "input_2d"), w},
             {{"stride", plane.stride},
              {"pad", plane.pad},
              {"dilation", plane.dilation},
              {"groups", groups}});
  }
  TESSEL_ASSIGN_OR_RETURN(y, AddBias(c, y, w_shape[0], x_shape.size() == 5 ? 5 : 4));
  if (x_shape.size() == 3 && y != kInvalid) {
    const std::vector<int64_t>& s = c.TypeOf(y).shape;
    y = c.Reshape(y, {s[0], s[1], s[3]}, "output_1d");
  }
  c.SetOutput(0, y);
  return absl::OkStatus();
}

// ConvTranspose's pads: explicit, or from output_shape / auto_pad as ONNX specifies (the total
// padding of an axis is what makes the output that long; SAME_UPPER puts the larger half at the
// end, the others at the start).
absl::StatusOr<std::vector<int64_t>> TransposePads(NodeContext& c, const std::vector<int64_t>& in,
                                                   const Window& win,
                                                   const std::vector<int64_t>& out_pad) {
  const size_t n = in.size();
  std::vector<int64_t> pads = win.pad;
  TESSEL_ASSIGN_OR_RETURN(const std::string auto_pad, c.String("auto_pad", "NOTSET"));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> output_shape, c.Ints("output_shape", {}));
  if (output_shape.empty() && (auto_pad == "NOTSET" || auto_pad == "VALID")) {
    if (auto_pad == "VALID") std::fill(pads.begin(), pads.end(), 0);
    return pads;
  }
  std::vector<int64_t> target = output_shape;
  if (target.size() == n + 2) target.erase(target.begin(), target.begin() + 2);
  if (target.empty()) {
    for (size_t i = 0; i < n; ++i) target.push_back(in[i] * win.stride[i]);
  }
  if (target.size() != n) {
    return c.Invalid(absl::StrCat("attribute 'output_shape' [", absl::StrJoin(output_shape, ", "),
                                  "] does not give the ", n, " spatial extents"));
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t total = win.stride[i] * (in[i] - 1) + out_pad[i] + win.kernel[i] - target[i];
    if (total < 0) {
      return c.Unsupported(absl::StrCat("attribute 'output_shape' ", target[i],
                                        " needs negative padding on spatial axis ", i));
    }
    const bool upper = auto_pad == "SAME_UPPER";
    pads[i] = upper ? total / 2 : total - total / 2;
    pads[i + n] = total - pads[i];
  }
  return pads;
}

absl::Status ConvertConvTranspose(NodeContext& c) {
  const std::vector<int64_t> x_shape = c.Shape(0), w_shape = c.Shape(1);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> in,
                          SpatialExtents(c, x_shape, "transposed convolution", 2));
  if (w_shape.size() != x_shape.size()) {
    return c.Invalid(absl::StrCat("the weight ", c.Type(1).ToString(), " and the input ",
                                  c.Type(0).ToString(), " differ in rank"));
  }
  TESSEL_ASSIGN_OR_RETURN(
      Window win,
      ReadWindow(c, in, std::vector<int64_t>(w_shape.begin() + 2, w_shape.end()), false));
  TESSEL_ASSIGN_OR_RETURN(const int64_t groups, c.Int("group", 1));
  if (groups != 1) return c.Unsupported(absl::StrCat("attribute 'group' ", groups));
  if (win.dilation != std::vector<int64_t>(in.size(), 1)) {
    return c.Unsupported(
        absl::StrCat("attribute 'dilations' [", absl::StrJoin(win.dilation, ", "), "]"));
  }
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> out_pad,
                          c.Ints("output_padding", std::vector<int64_t>(in.size(), 0)));
  if (out_pad.size() != in.size()) {
    return c.Invalid(absl::StrCat("attribute 'output_padding' has ", out_pad.size(),
                                  " entries, the input ", in.size(), " spatial axes"));
  }
  for (int64_t p : out_pad) {
    if (p < 0) return c.Invalid("attribute 'output_padding' entries must be >= 0");
  }
  TESSEL_ASSIGN_OR_RETURN(win.pad, TransposePads(c, in, win, out_pad));
  const Window plane = win.Plane();
  const std::vector<int64_t> out_pad_2d =
      in.size() == 1 ? std::vector<int64_t>{0, out_pad[0]} : out_pad;
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  TESSEL_ASSIGN_OR_RETURN(const ValueId w, Weight2d(c));
  ValueId y = c.Op("conv2d_transpose", {c.Reshape(x, As2d(x_shape), "input_2d"), w},
                   {{"stride", plane.stride}, {"pad", plane.pad}, {"output_padding", out_pad_2d}});
  TESSEL_ASSIGN_OR_RETURN(y, AddBias(c, y, w_shape[1], 4));
  if (x_shape.size() == 3 && y != kInvalid) {
    const std::vector<int64_t>& s = c.TypeOf(y).shape;
    y = c.Reshape(y, {s[0], s[1], s[3]}, "output_1d");
  }
  c.SetOutput(0, y);
  return absl::OkStatus();
}

}  // namespace

void AddConvConverters(ConverterTable& table) {
  table["Conv"] = ConvertConv;
  table["ConvTranspose"] = ConvertConvTranspose;
}

}  // namespace tessel::graph::onnx::internal
