#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"
#include "hardware/vdla/config.h"

// int8 dense (out[m, n] = sum_k data[m, k] * weight[n, k]) on VDLA, in the accelerator's blocked
// layouts (bi, bo: the configuration's block_in, block_out; b: its batch):
//   data   [M/b, K/bi, b, bi]
//   weight [N/bo, K/bi, bo, bi]
//   out    [M/b, N/bo, b, bo], int8
// The schedule: output tiles of tile_m rows x tile_n column blocks; per block of K, the tile's
// rows and the weights loaded by the DMA; the product tensorized on VDLA's GEMM; the tile stored
// narrowed. With vthreads > 1 the row (or column) tiles are spread over that many virtual threads,
// each with entries of its own, so that one's loads overlap another's GEMMs.
namespace tessel::ops::vdla {

struct DenseShape {
  int m = 1, n = 16, k = 16;  // multiples of the batch, block_out and block_in
  int64_t macs() const { return int64_t{m} * n * k; }
};

struct DenseTiling {
  int tile_m = 1;    // rows per tile, a multiple of the batch dividing m
  int tile_n = 1;    // output column blocks per tile, dividing N/bo
  int vthreads = 1;  // virtual threads over the row tiles, dividing m / tile_m
  // The virtual threads over the column tiles instead (dividing N/bo / tile_n): for a batch of
  // one row, which has one row tile.
  bool vthreads_over_columns = false;
  // The weight block in two alternating copies over the blocks of K, so that the next block's
  // load overlaps the GEMMs reading this one.
  bool double_buffer_weights = false;

  bool operator==(const DenseTiling&) const = default;
};

// The quantized layer's tail on the ALU:
//   out = int8(clip((acc + bias[n]) >> shift, relu ? 0 : -127, 127)),
// bias an int32 argument laid out [N/bo, b, bo]. Without it, out holds the sums' low 8 bits.
struct DenseTail {
  int shift = 9;  // arithmetic shift right, 0 to 31
  bool relu = false;
};

// The schedule and its arguments (data, weight, out; with a tail data, weight, bias, out),
// before lowering. Errors as LowerDense's.
struct DenseSchedule {
  schedule::Schedule schedule;
  std::vector<te::Tensor> args;
};
absl::StatusOr<DenseSchedule> ScheduleDense(const DenseShape& shape, const DenseTiling& tiling,
                                            const hardware::vdla::Config& config,
                                            std::optional<DenseTail> tail = std::nullopt);

// The lowered function dense(data, weight, out), or dense(data, weight, bias, out) with the tail.
// InvalidArgument naming the field: extents not in blocks, a tiling that does not divide; the
// schedule's and lowering's errors otherwise.
absl::StatusOr<ir::PrimFunc> LowerDense(const DenseShape& shape, const DenseTiling& tiling,
                                        const hardware::vdla::Config& config,
                                        std::optional<DenseTail> tail = std::nullopt);

}  // namespace tessel::ops::vdla
