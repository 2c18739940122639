#include "compiler/graph/onnx/window.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

// A list attribute of one entry per spatial axis (`fallback` when absent), each >= min_value.
absl::StatusOr<std::vector<int64_t>> PerAxis(const NodeContext& c, const std::string& name,
                                             size_t n, int64_t fallback, int64_t min_value) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.Ints(name, std::vector<int64_t>(n, fallback)));
  if (v.size() != n) {
    return c.Invalid(absl::StrCat("attribute '", name, "' has ", v.size(), " entries, the input ",
                                  n, " spatial axes"));
  }
  for (int64_t x : v) {
    if (x < min_value) {
      return c.Unsupported(absl::StrCat("attribute '", name, "' [", absl::StrJoin(v, ", "),
                                        "] (entries below ", min_value, ")"));
    }
  }
  return v;
}

}  // namespace

Window Window::Plane() const {
  if (axes() == 1) {
    return Window{.kernel = {1, kernel[0]},
                  .stride = {1, stride[0]},
                  .dilation = {1, dilation[0]},
                  .pad = {0, pad[0], 0, pad[1]}};
  }
  const size_t h = axes() - 2, w = axes() - 1;
  return Window{.kernel = {kernel[h], kernel[w]},
                .stride = {stride[h], stride[w]},
                .dilation = {dilation[h], dilation[w]},
                .pad = {pad_before(h), pad_before(w), pad_after(h), pad_after(w)}};
}

absl::StatusOr<std::vector<int64_t>> SpatialExtents(const NodeContext& c,
                                                    const std::vector<int64_t>& shape,
                                                    const char* what, size_t max_axes) {
  if (shape.size() < 3) {
    return c.Invalid(absl::StrCat("the input has rank ", shape.size(), "; ", what,
                                  " takes N, C and spatial axes"));
  }
  if (shape.size() > max_axes + 2)
    return c.Unsupported(absl::StrCat(shape.size() - 2, "-D ", what));
  return std::vector<int64_t>(shape.begin() + 2, shape.end());
}

absl::StatusOr<Window> ReadWindow(const NodeContext& c, const std::vector<int64_t>& in,
                                  const std::vector<int64_t>& kernel, bool resolve_auto_pad) {
  const size_t n = in.size();
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> k,
                          c.Ints("kernel_shape", kernel.empty() ? std::vector<int64_t>() : kernel));
  if (k.empty()) return c.Invalid("attribute 'kernel_shape' is missing");
  if (k.size() != n || (!kernel.empty() && k != kernel)) {
    return c.Invalid(absl::StrCat("attribute 'kernel_shape' [", absl::StrJoin(k, ", "),
                                  "] does not match the ", n, " spatial axes",
                                  kernel.empty() ? "" : " of the weight"));
  }
  for (int64_t x : k) {
    if (x < 1) return c.Invalid("attribute 'kernel_shape' entries must be >= 1");
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> stride, PerAxis(c, "strides", n, 1, 1));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, PerAxis(c, "dilations", n, 1, 1));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> pads, PerAxis(c, "pads", 2 * n, 0, 0));
  TESSEL_ASSIGN_OR_RETURN(const std::string auto_pad, c.String("auto_pad", "NOTSET"));
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID") {
    return c.Invalid(absl::StrCat("attribute 'auto_pad' '", auto_pad, "' is not an auto_pad mode"));
  }
  // ONNX forbids pads beside auto_pad; exporters that write both write zeros, and auto_pad wins.
  if (resolve_auto_pad && auto_pad != "NOTSET") {
    for (size_t i = 0; i < n; ++i) {
      if (auto_pad == "VALID") {
        pads[i] = pads[i + n] = 0;
        continue;
      }
      const int64_t out = (in[i] + stride[i] - 1) / stride[i];
      const int64_t span = (k[i] - 1) * dilation[i] + 1;
      const int64_t total = std::max<int64_t>(0, (out - 1) * stride[i] + span - in[i]);
      const int64_t small = total / 2, large = total - total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      pads[i + n] = auto_pad == "SAME_UPPER" ? large : small;
    }
  }
  return Window{.kernel = std::move(k),
                .stride = std::move(stride),
                .dilation = std::move(dilation),
                .pad = std::move(pads)};
}

std::vector<int64_t> As2d(const std::vector<int64_t>& shape) {
  if (shape.size() != 3) return shape;
  return {shape[0], shape[1], 1, shape[2]};
}

}  // namespace tessel::graph::onnx::internal
