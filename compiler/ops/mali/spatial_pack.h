#pragma once

#include <absl/status/statusor.h>

#include <array>
#include <cstdint>
#include <string>

#include "compiler/ir/expr.h"
#include "compiler/ops/mali/work_group.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"

// Spatial packing for the Mali convolutions (the paper's Fig. 19 schedules): each work-item
// computes a vh x vw tile of output pixels (for vc output channels) in registers. The input it
// needs, a window of (vh - 1) * stride + (kh - 1) * dilation + 1 rows by the same in columns per
// input channel, is packed (padding zeros included) into the work-item's private memory before
// the tile's products read it, so that those read no padding conditions.
//
// Tiled coordinates: an output pixel (y, x) is tile (y / vh, x / vw), offset (y % vh, x % vw);
// the tiles round up, and the tiles' pixels past the output read zeros (the padding condition
// covers every index past the input).
namespace tessel::ops::mali {

// Floats of one input channel a vh x vw tile of output pixels reads: its window's rows x columns.
int64_t WindowFloats(const nn::Conv2dAttrs& a, int64_t vh, int64_t vw);

// data [n, c, h, w] at padded coordinates (y, x): zero outside the input.
ir::Expr PaddedData(const te::Tensor& data, const nn::Conv2dAttrs& a, const ir::Expr& n,
                    const ir::Expr& c, const ir::Expr& y, const ir::Expr& x);

// The windows of every vh x vw tile: [n, c, ceil(oh / vh), ceil(ow / vw), wh, ww] with
// window[.., ty, tx, y, x] = PaddedData(n, c, ty * vh * stride_h + y, tx * vw * stride_w + x).
te::Tensor PackWindows(const te::Tensor& data, const nn::Conv2dAttrs& a, int64_t vh, int64_t vw,
                       const std::string& name);

// Schedules the stored output [n, c, oh, ow]: its axes split by the work-item's tile (vc channels,
// vh rows, vw columns), the batch fused with the channel tiles, the (batch and channel, row,
// column) tiles spread over work-groups of wg work-items each (BindWorkGroups), the tile's own
// loops (rows, columns, channels) unrolled inside. The work-item's registers go inside
// items.back().
absl::StatusOr<WorkGroupLoops> BindOutputTiles(schedule::Stage stored, int64_t vc, int64_t vh,
                                               int64_t vw, const std::array<int64_t, 3>& wg);

}  // namespace tessel::ops::mali
