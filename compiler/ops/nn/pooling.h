#pragma once

#include <absl/status/statusor.h>

#include <array>
#include <cstdint>

#include "compiler/te/tensor.h"

// Pooling over the spatial axes of NCHW data.
namespace tessel::ops::nn {

enum class PoolKind { kMax, kAvg };

struct Pool2DAttrs {
  PoolKind kind = PoolKind::kMax;
  std::array<int64_t, 2> kernel = {1, 1};     // (height, width)
  std::array<int64_t, 2> stride = {1, 1};     // (height, width)
  std::array<int64_t, 4> pad = {0, 0, 0, 0};  // (top, left, bottom, right)
  // Output extents rounded up instead of down; as torch, a last window that would start in the
  // trailing padding is dropped.
  bool ceil_mode = false;
  // Average only: divide by the whole window clipped to the padded input (true) or by the number
  // of input elements in it (false), as torch's avg_pool2d.
  bool count_include_pad = false;
};

// Output extent of one spatial axis of `in` elements, or an error when no window fits.
absl::StatusOr<int64_t> PoolOutputExtent(int64_t in, int64_t kernel, int64_t stride,
                                         int64_t pad_before, int64_t pad_after, bool ceil_mode);

// The shape of a pooling: input, output, and the padded input the windows cover (rows
// [-pad_top, ph - pad_top), columns [-pad_left, pw - pad_left)).
struct PoolGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t oh = 0, ow = 0;
  int64_t ph = 0, pw = 0;
  // Whether a window leaves the input (padding, or ceil mode's last window).
  bool needs_pad(const Pool2DAttrs& attrs) const {
    return attrs.pad[0] > 0 || attrs.pad[1] > 0 || ph > h + attrs.pad[0] || pw > w + attrs.pad[1];
  }
};

// The geometry of pooling data [N, C, H, W] with attrs, or an error naming the attribute.
absl::StatusOr<PoolGeometry> PoolGeometryOf(const te::Tensor& data, const Pool2DAttrs& attrs);

// Element (y, x) of plane (i, j) of the padded input: data at (y - pad_top, x - pad_left), the
// reduction's identity outside the input. A select of a read clamped into the input, not a
// guarded read: both sides are safe, so a vectorized loop stays vector code (a gather).
ir::Expr PaddedElement(const te::Tensor& data, const PoolGeometry& g, const Pool2DAttrs& attrs,
                       const ir::Expr& i, const ir::Expr& j, const ir::Expr& y, const ir::Expr& x);

// Average pooling's 1 / (element count of the window of output (oy, ox)), as torch counts.
ir::Expr AvgPoolScale(const PoolGeometry& g, const Pool2DAttrs& attrs, const ir::Expr& oy,
                      const ir::Expr& ox, ir::DataType dtype);

// Pooling of data [N, C, H, W] into [N, C, OH, OW]. When a window can leave the input (padding or
// ceil mode) the result reads a stage named "pad": the input extended to cover every window, the
// extension holding the reduction's identity (the lowest float for max, 0 for average), chosen
// by a select over a read clamped into the input (no guarded reads, so it vectorizes). Either
// kind is one reduction stage; average sums each element times the reciprocal of its window's
// count (which depends on the output position only). Errors name the attribute.
absl::StatusOr<te::Tensor> Pool2D(const te::Tensor& data, const Pool2DAttrs& attrs);

// Max or average of each (n, c) plane of data [N, C, H, W], as [N, C, 1, 1]: one reduction
// stage (average sums the elements times 1 / (H * W)).
absl::StatusOr<te::Tensor> GlobalPool2D(const te::Tensor& data, PoolKind kind);

}  // namespace tessel::ops::nn
