#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/stmt.h"

// Real GPU schedules, lowered, for the CUDA backend's tests: the same kernels are compiled to
// cubins here (codegen_test) and run on a GPU against the interpreter (gpu_run_test). Nothing
// here links LLVM, so the run test can travel to a machine without our Debian libraries.
namespace tessel::codegen::gpu::testing {

struct GpuKernel {
  ir::PrimFunc func;
  // The arguments to run it on: one shape per tensor parameter (inputs first, then the output,
  // in parameter order), then the values of the int32 shape parameters.
  std::vector<std::vector<int64_t>> tensor_shapes;
  std::vector<int64_t> scalars;
  // Bytes of shared memory the schedule stages (0: none).
  int64_t shared_bytes = 0;
  // Threads per block of the schedule.
  int64_t threads = 0;
};

// C[i] = A[i] + B[i] over a symbolic n (run with n = 1000): blocks of 64 threads, a guard on the
// last block; the grid is ceil(n / 64), evaluated at launch.
absl::StatusOr<GpuKernel> VectorAdd();

// C = A * B, 256 x 256 x 256: 64 x 64 tiles per block of 16 x 16 threads, each thread a 4 x 4
// block of C in a local accumulator (cache_write "local"); per step of 8 along k, both 64 x 8
// tiles are fetched into shared memory cooperatively (the copy loops fused and bound to
// threadIdx) with barriers around the compute (thread_sync). Shared: 2 x 64 x 8 x 4 bytes.
absl::StatusOr<GpuKernel> SharedMatmul();

// B[i] = sum_k exp(A[i, k]) for A of 128 x 256: one thread per row.
absl::StatusOr<GpuKernel> RowSumExp();

// B[i] = A[i] * 2 for 4096 elements, vectorized by 4 (float4 loads and stores).
absl::StatusOr<GpuKernel> Float4Scale();

// C[i, j] = A[i, j] * 2 + 1 on 64 x 64 with two virtual threads along i (inject_virtual_thread).
absl::StatusOr<GpuKernel> VthreadAffine();

// Index arithmetic that printing inline would repeat (hand-built IR, one block of 256 threads):
// B[t] = A[deep(t)], deep a chain of 16 steps each using the previous one twice (a DAG the
// printer must not unfold); B[256 + t] and B[512 + t] read A at one long index from sibling
// branches (if/else statements, if_then_else arms) and after them, and divide it by the shape
// parameter n (run with n = 7) inside a select. A has 256 elements, B 768.
absl::StatusOr<GpuKernel> IndexReuse();

// All of the above, in this order.
absl::StatusOr<std::vector<GpuKernel>> AllGpuKernels();

// User errors: a kernel with a statement outside every thread-bound loop; one with 2048 threads
// per block; one that stages 64 KiB of shared memory per block.
absl::StatusOr<ir::PrimFunc> UnboundLoops();
absl::StatusOr<ir::PrimFunc> TooManyThreads();
// B = A + 1 over n elements, split by `inner`: the outer loop bound to `block_tag`, the inner one
// to `thread_tag` (for extents past one dimension's limit).
absl::StatusOr<ir::PrimFunc> BoundTo(int n, int inner, const std::string& block_tag,
                                     const std::string& thread_tag);
absl::StatusOr<ir::PrimFunc> TooMuchSharedMemory();

// B[i] = A[i] + 1 for 8192 elements in blocks of `threads` threads (a divisor of 8192), named
// "block_<threads>": 512 fits CUDA's 1024 but not a Mali work-group's 256.
absl::StatusOr<GpuKernel> ThreadsPerBlock(int threads);

// B[i] = A[i] * 3 over blocks that stage `tile` floats of A in shared memory (tile a multiple of
// 256, 256 threads per block, 4 blocks), named "staged_<tile>": a tile of 10240 floats (40 KiB)
// fits CUDA's 48 KiB but not a Mali work-group's 32 KiB of local memory.
absl::StatusOr<GpuKernel> StagedTile(int tile);

}  // namespace tessel::codegen::gpu::testing
