#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/graph/onnx/importer.h"

// The window attributes that Conv, ConvTranspose and the pools share (kernel_shape, strides,
// dilations, pads, auto_pad), read for 1, 2 or 3 spatial axes.
namespace tessel::graph::onnx::internal {

// A window over the spatial axes, one entry per axis; `pad` as ONNX writes it: the starts of the
// axes, then their ends (for 2-D: top, left, bottom, right, as the operator library's `pad`).
struct Window {
  std::vector<int64_t> kernel, stride, dilation, pad;

  size_t axes() const { return kernel.size(); }
  int64_t pad_before(size_t axis) const { return pad[axis]; }
  int64_t pad_after(size_t axis) const { return pad[axis + axes()]; }
  // The extent one window covers on an axis: (kernel - 1) * dilation + 1.
  int64_t span(size_t axis) const { return (kernel[axis] - 1) * dilation[axis] + 1; }
  // The 2-D window of the last two axes; a 1-D window as one of height 1.
  Window Plane() const;
};

// The spatial extents of an N, C, spatial... input: 1 to `max_axes` of them, else Unsupported
// ("<n>-D <what>").
absl::StatusOr<std::vector<int64_t>> SpatialExtents(const NodeContext& c,
                                                    const std::vector<int64_t>& shape,
                                                    const char* what, size_t max_axes);

// Reads the window over `in` (the spatial extents). kernel: the kernel's extents when a weight
// gives them (kernel_shape must then agree), empty when kernel_shape is required. With
// `resolve_auto_pad`, auto_pad SAME_UPPER / SAME_LOWER / VALID become explicit pads (output
// extent ceil(in / stride)); ConvTranspose resolves its own.
absl::StatusOr<Window> ReadWindow(const NodeContext& c, const std::vector<int64_t>& in,
                                  const std::vector<int64_t>& kernel, bool resolve_auto_pad);

// The 4-D shape of a 1-D input [n, c, l]: [n, c, 1, l]; a 4-D shape stays.
std::vector<int64_t> As2d(const std::vector<int64_t>& shape);

}  // namespace tessel::graph::onnx::internal
