#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/graph/onnx/importer.h"

// The window attributes that Conv, ConvTranspose and the pools share (kernel_shape, strides,
// dilations, pads, auto_pad), read for a 1-D or 2-D window and given as a 2-D window: a 1-D
// window is one of height 1 over an input reshaped to height 1.
namespace tessel::graph::onnx::internal {

struct Window2d {
  std::vector<int64_t> kernel = {1, 1};
  std::vector<int64_t> stride = {1, 1};
  std::vector<int64_t> dilation = {1, 1};
  std::vector<int64_t> pad = {0, 0, 0, 0};  // top, left, bottom, right
};

// The spatial extents of an N, C, spatial... input: 1 or 2 of them, else Unsupported
// ("<n>-D <what>").
absl::StatusOr<std::vector<int64_t>> SpatialExtents(const NodeContext& c,
                                                    const std::vector<int64_t>& shape,
                                                    const char* what);

// Reads the window over `in` (the spatial extents). kernel: the kernel's extents when a weight
// gives them (kernel_shape must then agree), empty when kernel_shape is required. With
// `resolve_auto_pad`, auto_pad SAME_UPPER / SAME_LOWER / VALID become explicit pads (output
// extent ceil(in / stride)); ConvTranspose resolves its own.
absl::StatusOr<Window2d> ReadWindow(const NodeContext& c, const std::vector<int64_t>& in,
                                    const std::vector<int64_t>& kernel, bool resolve_auto_pad);

// The 4-D shape of a 1-D input [n, c, l]: [n, c, 1, l]; a 4-D shape stays.
std::vector<int64_t> As2d(const std::vector<int64_t>& shape);

}  // namespace tessel::graph::onnx::internal
