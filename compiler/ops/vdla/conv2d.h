#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"
#include "hardware/vdla/config.h"

// int8 conv2d on VDLA, batch 1, in the accelerator's blocked layouts:
//   data   [1, C/bi, H, W, 1, bi]
//   kernel [O/bo, C/bi, K, K, bo, bi]
//   out    [1, O/bo, OH, OW, 1, bo], the int32 sums' low 8 bits (the store narrows)
// (bi, bo: the configuration's block_in, block_out). The schedule: output tiles of tile_h rows x
// tile_o channel blocks; for each input channel block, the padded input rows the tile needs
// loaded by the DMA (zeros for the padding) and the kernel block; the product tensorized on
// VDLA's GEMM; the tile stored narrowed. With vthreads > 1 the row (or channel) tiles are spread
// over that many virtual threads, each with entries of its own, so one's loads overlap another's
// GEMMs.
namespace tessel::ops::vdla {

struct Conv2dShape {
  int c = 16, o = 16;  // input and output channels, multiples of the blocks
  int h = 1, w = 1;    // input extents
  int k = 1, stride = 1, pad = 0;
  int oh() const { return (h + 2 * pad - k) / stride + 1; }
  int ow() const { return (w + 2 * pad - k) / stride + 1; }
  int64_t macs() const { return int64_t{o} * oh() * ow() * c * k * k; }
};

struct Conv2dTiling {
  int tile_h = 1;    // output rows per tile, dividing oh
  int tile_o = 1;    // output channel blocks per tile, dividing O/bo
  int vthreads = 1;  // virtual threads over the row tiles, dividing oh / tile_h
  // The virtual threads over the channel tiles instead (dividing O/bo / tile_o): for layers
  // whose row tiles do not split evenly (7 rows).
  bool vthreads_over_channels = false;
  // The kernel block in two copies, alternating over the input channel blocks, so that the next
  // block's load overlaps the GEMMs reading this one (the weight buffer's share doubles).
  bool double_buffer_weights = false;

  bool operator==(const Conv2dTiling&) const = default;
};

// The quantized layer's tail on the ALU (requantization):
//   out = int8(clip((acc + bias[o]) >> shift, relu ? 0 : -127, 127)),
// bias an int32 argument laid out [O/bo, 1, bo] (the channels in order). Without it, out holds the
// sums' low 8 bits.
struct Conv2dTail {
  int shift = 0;  // arithmetic shift right, 0 to 31
  bool relu = false;
};

// The schedule and its arguments (data, kernel, out; with a tail data, kernel, bias, out), before
// lowering. Errors as LowerConv2d's.
struct Conv2dSchedule {
  schedule::Schedule schedule;
  std::vector<te::Tensor> args;
};
absl::StatusOr<Conv2dSchedule> ScheduleConv2d(const Conv2dShape& shape, const Conv2dTiling& tiling,
                                              const hardware::vdla::Config& config,
                                              std::optional<Conv2dTail> tail = std::nullopt);

// The lowered function conv2d(data, kernel, out). InvalidArgument naming the field: channels not
// in blocks, a tiling that does not divide; the schedule's and lowering's errors otherwise.
absl::StatusOr<ir::PrimFunc> LowerConv2d(const Conv2dShape& shape, const Conv2dTiling& tiling,
                                         const hardware::vdla::Config& config,
                                         std::optional<Conv2dTail> tail = std::nullopt);

}  // namespace tessel::ops::vdla
