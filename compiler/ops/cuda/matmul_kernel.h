#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>

#include "compiler/ir/stmt.h"

// The square matrix multiply of the paper's Fig. 7 as one CUDA kernel, C[i, j] = sum over k of
// A[i, k] * B[k, j] (float32, n x n, row-major), with and without cooperative shared-memory
// fetching.
//
// Each block computes a tile x tile tile of C with threads x threads threads; each thread
// accumulates a (tile / threads)^2 block of it in registers ("local" scope), k in steps of
// `step`. With cooperative fetching, each step's A and B tiles (tile x step, step x tile) are
// first copied into shared memory by all the block's threads together, each copying a few
// elements, so each element is read from global memory once per block (barriers around the
// copy come from the thread_sync pass). Without, every thread reads its own operands from global
// memory, each element tile / (tile / threads) = threads times per block.
namespace tessel::ops::cuda {

struct MatmulKernelOptions {
  int n = 1024;
  bool cooperative = true;
  int tile = 64;
  int threads = 16;  // per dimension: threads^2 threads per block
  int step = 8;
};

// The lowered kernel, named `name`, with parameters A, B, C. InvalidArgument when tile does not
// divide n, threads does not divide tile, step does not divide n, or the shared tiles cannot be
// fetched by whole rows of threads (tile * step a multiple of threads^2).
absl::StatusOr<ir::PrimFunc> MatmulKernel(const MatmulKernelOptions& options,
                                          const std::string& name);

}  // namespace tessel::ops::cuda
