// Conv and ConvTranspose: 2-D directly, 1-D as 2-D of height 1 (the input reshaped to
// [n, c, 1, l] and back); the bias is an add of a [c, 1, 1] tensor.
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/window.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

// The weight (input 1) with its spatial axes made 2-D: a constant re-laid at import, else a
// reshape node.
absl::StatusOr<ValueId> Weight2d(NodeContext& c) {
  const std::vector<int64_t> shape = c.Shape(1);
  TESSEL_ASSIGN_OR_RETURN(const NDArray w, c.Float32Constant(1));
  if (shape.size() == 4) return c.Float32(1);
  if (w.defined()) {
    TESSEL_ASSIGN_OR_RETURN(NDArray w4, Reshaped(w, As2d(shape), c.budget()));
    return c.NewConstant("weight", std::move(w4));
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId v, c.Float32(1));
  return c.Reshape(v, As2d(shape), "weight_2d");
}

// y plus the bias (input 2, [channels]) along axis 1 of a 4-D y.
absl::StatusOr<ValueId> AddBias(NodeContext& c, ValueId y, int64_t channels) {
  if (!c.HasInput(2)) return y;
  if (c.Shape(2) != std::vector<int64_t>{channels}) {
    return c.Invalid(absl::StrCat("the bias must have shape [", channels, "], got ",
                                  c.Type(2).ToString()));
  }
  TESSEL_ASSIGN_OR_RETURN(const NDArray b, c.Float32Constant(2));
  ValueId bias;
  if (b.defined()) {
    TESSEL_ASSIGN_OR_RETURN(NDArray b3, Reshaped(b, {channels, 1, 1}, c.budget()));
    bias = c.NewConstant("bias", std::move(b3));
  } else {
    TESSEL_ASSIGN_OR_RETURN(const ValueId v, c.Float32(2));
    bias = c.Reshape(v, {channels, 1, 1}, "bias_3d");
  }
  return c.Op("add", {y, bias}, {}, "bias");
}

absl::Status ConvertConv(NodeContext& c) {
  const std::vector<int64_t> x_shape = c.Shape(0), w_shape = c.Shape(1);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> in, SpatialExtents(c, x_shape, "convolution"));
  if (w_shape.size() != x_shape.size()) {
    return c.Invalid(absl::StrCat("the weight ", c.Type(1).ToString(), " and the input ",
                                  c.Type(0).ToString(), " differ in rank"));
  }
  TESSEL_ASSIGN_OR_RETURN(
      const Window2d win,
      ReadWindow(c, in, std::vector<int64_t>(w_shape.begin() + 2, w_shape.end()), true));
  TESSEL_ASSIGN_OR_RETURN(const int64_t groups, c.Int("group", 1));
  if (groups < 1) return c.Invalid("attribute 'group' must be >= 1");
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  TESSEL_ASSIGN_OR_RETURN(const ValueId w, Weight2d(c));
  ValueId y = c.Op("conv2d", {c.Reshape(x, As2d(x_shape), "input_2d"), w},
                   {{"stride", win.stride},
                    {"pad", win.pad},
                    {"dilation", win.dilation},
                    {"groups", groups}});
  TESSEL_ASSIGN_OR_RETURN(y, AddBias(c, y, w_shape[0]));
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
                                                   const Window2d& win,
                                                   const std::vector<int64_t>& out_pad) {
  const size_t n = in.size();
  std::vector<int64_t> pads(2 * n);
  const int offset = n == 1 ? 1 : 0;  // the 2-D window of a 1-D axis is its second axis
  for (size_t i = 0; i < n; ++i) {
    pads[i] = win.pad[i + offset];
    pads[i + n] = win.pad[i + offset + 2];
  }
  TESSEL_ASSIGN_OR_RETURN(const std::string auto_pad, c.String("auto_pad", "NOTSET"));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> output_shape, c.Ints("output_shape", {}));
  if (output_shape.empty() && (auto_pad == "NOTSET" || auto_pad == "VALID")) {
    if (auto_pad == "VALID") std::fill(pads.begin(), pads.end(), 0);
    return pads;
  }
  std::vector<int64_t> target = output_shape;
  if (target.size() == n + 2) target.erase(target.begin(), target.begin() + 2);
  if (target.empty()) {
    for (size_t i = 0; i < n; ++i) target.push_back(in[i] * win.stride[i + offset]);
  }
  if (target.size() != n) {
    return c.Invalid(absl::StrCat("attribute 'output_shape' [", absl::StrJoin(output_shape, ", "),
                                  "] does not give the ", n, " spatial extents"));
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = win.kernel[i + offset];
    const int64_t total = win.stride[i + offset] * (in[i] - 1) + out_pad[i] + k - target[i];
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
                          SpatialExtents(c, x_shape, "transposed convolution"));
  if (w_shape.size() != x_shape.size()) {
    return c.Invalid(absl::StrCat("the weight ", c.Type(1).ToString(), " and the input ",
                                  c.Type(0).ToString(), " differ in rank"));
  }
  TESSEL_ASSIGN_OR_RETURN(
      Window2d win,
      ReadWindow(c, in, std::vector<int64_t>(w_shape.begin() + 2, w_shape.end()), false));
  TESSEL_ASSIGN_OR_RETURN(const int64_t groups, c.Int("group", 1));
  if (groups != 1) return c.Unsupported(absl::StrCat("attribute 'group' ", groups));
  if (win.dilation != std::vector<int64_t>{1, 1}) {
    return c.Unsupported(absl::StrCat("attribute 'dilations' [",
                                      absl::StrJoin(win.dilation, ", "), "]"));
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
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> pads, TransposePads(c, in, win, out_pad));
  std::vector<int64_t> out_pad_2d = out_pad;
  if (in.size() == 1) {
    win.pad = {0, pads[0], 0, pads[1]};
    out_pad_2d = {0, out_pad[0]};
  } else {
    win.pad = pads;
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  TESSEL_ASSIGN_OR_RETURN(const ValueId w, Weight2d(c));
  ValueId y = c.Op("conv2d_transpose", {c.Reshape(x, As2d(x_shape), "input_2d"), w},
                   {{"stride", win.stride}, {"pad", win.pad}, {"output_padding", out_pad_2d}});
  TESSEL_ASSIGN_OR_RETURN(y, AddBias(c, y, w_shape[1]));
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
