#pragma once

#include <absl/status/status.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "compiler/ops/template_util.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// Register tiles for the x86 matrix templates (dense, matmul, batch_matmul, the RNN cells,
// bit-serial dense), after gemm.cc's kernel and with AutoTVM's x86 dense knobs:
//   tile_y  the rows m in three: [blocks, tiles per block, rows of a register tile]
//   tile_x  the columns n in three: [blocks, tiles per block, columns of a register tile]
//   tile_k  the (last) reduction axis in two: [steps, steps unrolled]
// Sizes are powers of two, so any m, n, k has useful tiles; the outermost part is rounded up.
//
// The schedule has two kinds of stages. The output (`out`, elementwise, its last two axes the
// rows and columns, leading axes a batch) loops blocks (fused with the batch, parallel), then
// tiles, then the tile's rows (unrolled) and columns (vectorized). Each reduction (`accs`) is
// computed per tile: its reduction loops outermost, then its data axes unrolled, the last one
// (columns) vectorized, so that the tile's accumulators stay in vector registers.
//
// Padded extents. A reduction is declared over padded() rows and columns, a multiple of the
// block, so every tile is whole: its region is a constant, its vector loop has no guard, and it
// reads its operands in bounds only if they are padded too (zero rows in packed weights, a padded
// copy of the data). Only `out` sees the logical extents: the stores of a partial tile are guarded.
namespace tessel::ops::x86 {

struct MatrixTiles {
  std::array<int64_t, 3> y{1, 1, 1};
  std::array<int64_t, 3> x{1, 1, 1};
  std::array<int64_t, 2> k{1, 1};

  int64_t rows() const { return y[2]; }
  int64_t cols() const { return x[2]; }
  int64_t padded_m() const { return y[0] * y[1] * y[2]; }
  int64_t padded_n() const { return x[0] * x[1] * x[2]; }
};

// Declares tile_y, tile_x and tile_k for an m x n output with a reduction of k.
void DefineMatrixTileKnobs(search::ConfigSpace& space, int64_t m, int64_t n, int64_t k,
                           const target::TargetFacts& facts);

// The untuned tiles, as the "knobs" entries of Config::ToJson: one block per register tile,
// parallel over blocks; register tiles of up to 8 rows (4 without AVX-512) and as many vectors of
// columns as keep half the vector registers as accumulators (`column_groups` tiles share one row
// broadcast, as LSTM's four gates do, and count as one wider tile). Small m gets wider tiles, so
// that m = 1 (a matrix-vector product) still has independent accumulators.
nlohmann::json MatrixTileFallback(int64_t m, int64_t n, int64_t k, const target::TargetFacts& facts,
                                  int column_groups = 1);

MatrixTiles ReadMatrixTiles(const search::Config& config);

// Schedules `out` and its reductions as described above. Every acc must be read by `out` (directly
// or through inlined stages) and be declared over the padded extents.
absl::Status ScheduleMatrixTiles(schedule::Schedule& s, const te::Operation& out,
                                 const std::vector<te::Tensor>& accs, const MatrixTiles& tiles,
                                 const target::TargetFacts& facts);

// A root stage that copies, pads or packs data: outer axes fused and parallel, the innermost axis
// vectorized when its extent is a multiple of the lanes (split by them), left serial otherwise.
absl::Status ScheduleCopyStage(schedule::Schedule& s, const te::Tensor& t,
                               const target::TargetFacts& facts);

// A root stage that reduces (bit planes, sums of bit planes): its two leading data axes fused
// (one when it has one) and parallel; the rest left to LLVM.
absl::Status ScheduleReductionStage(schedule::Schedule& s, const te::Tensor& t,
                                    const target::TargetFacts& facts);

}  // namespace tessel::ops::x86
