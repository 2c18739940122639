#include "baselines/torch/forms.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

// The output extent of a window of `span` (dilated kernel extent) over `padded` elements with
// `stride`, or an error naming the axis' keys when the window does not fit once.
absl::StatusOr<int64_t> FloorExtent(const ops::ArgReader& reader, const char* axis,
                                    const char* kernel_key, int64_t padded, int64_t span,
                                    int64_t stride) {
  if (padded < span) {
    return reader.Error(absl::StrCat("the kernel ('", kernel_key, "', spanning ", span,
                                     " with dilation) exceeds the padded input ('", axis,
                                     "' plus 'pad' = ", padded, ")"));
  }
  return (padded - span) / stride + 1;
}

// The keys conv2d and conv2d_transpose share.
template <class Form>
absl::Status ReadSizes(const ops::ArgReader& reader, Form& f) {
  TESSEL_ASSIGN_OR_RETURN(f.n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(f.ic, reader.Int("ic"));
  TESSEL_ASSIGN_OR_RETURN(f.h, reader.Int("h"));
  TESSEL_ASSIGN_OR_RETURN(f.w, reader.Int("w"));
  TESSEL_ASSIGN_OR_RETURN(f.oc, reader.Int("oc"));
  TESSEL_ASSIGN_OR_RETURN(f.kh, reader.Int("kh"));
  TESSEL_ASSIGN_OR_RETURN(f.kw, reader.Int("kw"));
  TESSEL_ASSIGN_OR_RETURN(f.stride, reader.IntsOr("stride", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(f.pad, reader.IntsOr("pad", 4, {0, 0, 0, 0}, 0));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Conv2dForm> ReadConv2d(const std::string& op, const ops::OpArgs& args,
                                      bool groups_and_dilation) {
  ops::ArgReader reader(op, args);
  Conv2dForm f;
  TESSEL_RETURN_IF_ERROR(ReadSizes(reader, f));
  TESSEL_ASSIGN_OR_RETURN(f.dilation, reader.IntsOr("dilation", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(f.groups, reader.IntOr("groups", 1));
  if (!groups_and_dilation) {
    if (f.groups != 1) return reader.Error("argument 'groups' must be 1 (not supported)");
    if (f.dilation != std::vector<int64_t>{1, 1}) {
      return reader.Error("argument 'dilation' must be [1, 1] (not supported)");
    }
  }
  if (f.ic % f.groups != 0 || f.oc % f.groups != 0) {
    return reader.Error(absl::StrCat("argument 'groups' (", f.groups, ") must divide 'ic' (", f.ic,
                                     ") and 'oc' (", f.oc, ")"));
  }
  TESSEL_ASSIGN_OR_RETURN(f.oh, FloorExtent(reader, "h", "kh", f.h + f.pad[0] + f.pad[2],
                                            f.dilation[0] * (f.kh - 1) + 1, f.stride[0]));
  TESSEL_ASSIGN_OR_RETURN(f.ow, FloorExtent(reader, "w", "kw", f.w + f.pad[1] + f.pad[3],
                                            f.dilation[1] * (f.kw - 1) + 1, f.stride[1]));
  return f;
}

absl::StatusOr<Conv2dTransposeForm> ReadConv2dTranspose(const std::string& op,
                                                        const ops::OpArgs& args) {
  ops::ArgReader reader(op, args);
  Conv2dTransposeForm f;
  TESSEL_RETURN_IF_ERROR(ReadSizes(reader, f));
  TESSEL_ASSIGN_OR_RETURN(f.output_padding, reader.IntsOr("output_padding", 2, {0, 0}, 0));
  f.oh = (f.h - 1) * f.stride[0] - f.pad[0] - f.pad[2] + f.kh + f.output_padding[0];
  f.ow = (f.w - 1) * f.stride[1] - f.pad[1] - f.pad[3] + f.kw + f.output_padding[1];
  if (f.oh < 1 || f.ow < 1) {
    return reader.Error(
        absl::StrCat("argument 'pad' removes the whole output (", f.oh, " x ", f.ow, ")"));
  }
  return f;
}

absl::StatusOr<Pool2dForm> ReadPool2d(const std::string& op, const ops::OpArgs& args, bool is_avg) {
  ops::ArgReader reader(op, args);
  Pool2dForm f;
  TESSEL_ASSIGN_OR_RETURN(f.n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(f.c, reader.Int("c"));
  TESSEL_ASSIGN_OR_RETURN(f.h, reader.Int("h"));
  TESSEL_ASSIGN_OR_RETURN(f.w, reader.Int("w"));
  TESSEL_ASSIGN_OR_RETURN(f.kh, reader.Int("kh"));
  TESSEL_ASSIGN_OR_RETURN(f.kw, reader.Int("kw"));
  TESSEL_ASSIGN_OR_RETURN(f.stride, reader.IntsOr("stride", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(f.pad, reader.IntsOr("pad", 4, {0, 0, 0, 0}, 0));
  TESSEL_ASSIGN_OR_RETURN(f.ceil_mode, reader.BoolOr("ceil_mode", false));
  if (is_avg) {
    TESSEL_ASSIGN_OR_RETURN(f.count_include_pad, reader.BoolOr("count_include_pad", false));
  }
  if (f.pad[0] >= f.kh || f.pad[2] >= f.kh || f.pad[1] >= f.kw || f.pad[3] >= f.kw) {
    return reader.Error("argument 'pad' entries must be smaller than the kernel ('kh', 'kw')");
  }
  const int64_t extents[2] = {f.h, f.w};
  const int64_t kernel[2] = {f.kh, f.kw};
  int64_t* out[2] = {&f.oh, &f.ow};
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t before = f.pad[axis], padded = extents[axis] + before + f.pad[axis + 2];
    const int64_t s = f.stride[axis];
    TESSEL_ASSIGN_OR_RETURN(
        int64_t o, FloorExtent(reader, axis == 0 ? "h" : "w", axis == 0 ? "kh" : "kw", padded,
                               kernel[axis], s));
    if (f.ceil_mode) {
      o = (padded - kernel[axis] + s - 1) / s + 1;
      if ((o - 1) * s >= extents[axis] + before) --o;
    }
    *out[axis] = o;
  }
  return f;
}

}  // namespace tessel::baselines::internal
