#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/schedule/schedule.h"

// Single-precision matrix multiplication C = A * B (row-major A: m x k, B: k x n, C: m x n) and
// two x86 schedules for it: the default (the naive loop nest) and a hand-written one.
//
// The hand-written schedule packs B into column panels of `nr` columns (packed[j / nr][k][j % nr],
// zero-padded) so that the inner kernel reads it contiguously, and computes C in mr x nr register
// tiles: for each tile, a loop over k holds the mr x nr accumulators in vector registers (the
// tile's rows unrolled, its columns vectorized), broadcasting one element of A per row. Panels
// run in parallel over the thread pool. Sizes need not divide the tiles.
namespace tessel::ops::x86 {

struct GemmProgram {
  schedule::Schedule schedule;
  std::vector<te::Tensor> args;  // A, B, C
};

struct GemmTiling {
  int mr = 8;   // rows of a register tile (unrolled)
  int nr = 32;  // columns of a register tile (vectorized; a multiple of the vector lanes)
  int kc = 0;   // k-block of the inner kernel (0: the whole k)
  bool parallel = true;
};

// The tiling for a target whose widest vector register has vector_bits (fp32 lanes = bits / 32).
GemmTiling DefaultGemmTiling(int vector_bits);

// The naive schedule: one loop per axis, k innermost.
GemmProgram GemmDefault(int64_t m, int64_t n, int64_t k);

// The hand-written schedule above; an error names an invalid tiling.
absl::StatusOr<GemmProgram> GemmBlocked(int64_t m, int64_t n, int64_t k, const GemmTiling& tiling);

}  // namespace tessel::ops::x86
