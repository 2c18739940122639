#pragma once

#include <absl/status/status.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/schedule/schedule.h"
#include "compiler/target/gpu_facts.h"
#include "compiler/te/tensor.h"

// A reduction of rows across the threads of one GPU block, for rows long enough to share among
// threads (global pooling's planes, softmax's rows): one block per row, through shared memory.
//
// For a row r of k elements and a block of `threads` threads (a power of two):
//   partial[r, t]  = reduce over j of element(r, j * threads + t), j * threads + t < k
//                    (strided, so each step of the threads reads consecutive elements);
//   level1[r, t]   = partial[r, t] op partial[r, t + threads / 2],   t < threads / 2
//   level2[r, t]   = level1[r, t] op level1[r, t + threads / 4],     t < threads / 4
//   ...            down to one element, result(r) = last level [r, 0].
// Every stage lives in shared memory, computed inside the consumer's block loop (the last level
// there, each earlier stage in the row loop, of extent 1, of the stage reading it), its thread
// axis bound to threadIdx.x with the block's extent (a guard leaves idle the threads a level
// does not need); the thread_sync pass puts the barriers between levels. Shared memory: about
// 2 * threads floats per reduction.
namespace tessel::ops::cuda {

enum class RowReducer { kSum, kMax };

struct BlockRowReduction {
  int64_t threads = 1;
  std::vector<te::Tensor> stages;  // partial, then the levels
  // The reduced value of row r (a read of the last level).
  ir::Expr result(const ir::Expr& row) const;
};

// The stages for rows [0, rows) of k elements each; element(row, index) is read only at
// indices below k.
BlockRowReduction BlockReduceRows(
    int64_t rows, int64_t k, int64_t threads, RowReducer reducer,
    const std::function<ir::Expr(const ir::Expr& row, const ir::Expr& index)>& element,
    const std::string& name);

// The threads a fallback gives a block reducing rows of k elements: the largest power of two
// of ThreadsPerBlockValues (injective_schedule.h) up to k / 2 and up to DefaultThreadsPerBlock,
// at least the smallest value (so each thread has about two elements or more to start with).
int64_t BlockThreadsForRows(const target::GpuFacts& gpu, int64_t k);

// Schedules r's stages inside `block`, a loop of `consumer` over the rows bound to blockIdx.
absl::Status ScheduleBlockRowReduction(schedule::Schedule& s, const BlockRowReduction& r,
                                       const schedule::Stage& consumer, const ir::IterVar& block);

// A new schedule of `out` [rows, k] with a block per row: rows on blockIdx.x, k split by
// `threads` onto threadIdx.x, and each of `reductions` (read by out at its row) inside the row's
// block as ScheduleBlockRowReduction places it.
absl::Status ScheduleBlockPerRow(schedule::Schedule& s, const te::Tensor& out, int64_t threads,
                                 const std::vector<const BlockRowReduction*>& reductions);

}  // namespace tessel::ops::cuda
