#pragma once

#include <vector>

#include "costmodels/features/loop_nest.h"
#include "costmodels/features/touch.h"

// AutoTVM-style itervar features (PAPER.md §2 "Features"): one row per loop of the lowered
// program, kNodeWidth values each, every value through Slog (sign(x) log2(|x| + 1)).
//
//   kExtent        the loop's extent
//   kDepth         number of enclosing loops (0 for an outermost loop)
//   kTripCount     iterations of the loop over the whole program: its extent times the enclosing
//                  loops' extents
//   kKind...       one-hot annotation: serial, parallel, vectorized, unrolled, the thread
//                  bindings blockIdx.x/y/z and threadIdx.x/y/z, vthread, any other thread tag
//   kOps...        float add (and sub), mul, div and other operations one iteration runs, inner
//                  loops included (Loop::ops)
//   kBuffers...    for kMaxBuffers buffers touched inside the loop, most element accesses first
//                  (ties by name, then first access), kBufferWidth values each, zeros for
//                  missing ones (BufferTouch):
//     kStride      stride of the loop's variable in the buffer's flat index (0: not used)
//     kCount       distinct elements touched by the whole loop
//     kReuse       element accesses / kCount
//     kParCount    kCount and kReuse with the nearest enclosing parallel loop moved innermost
//     kParReuse
//     kWritten     1 if the loop stores to the buffer
namespace tessel::costmodels {

enum ItervarColumn : int {
  kExtent,
  kDepth,
  kTripCount,
  kKindSerial,
  kKindParallel,
  kKindVectorized,
  kKindUnrolled,
  kKindBlockIdxX,
  kKindBlockIdxY,
  kKindBlockIdxZ,
  kKindThreadIdxX,
  kKindThreadIdxY,
  kKindThreadIdxZ,
  kKindVthread,
  kKindOtherThread,
  kOpsAdd,
  kOpsMul,
  kOpsDiv,
  kOpsOther,
  kBuffers,
};

enum BufferColumn : int { kStride, kCount, kReuse, kParCount, kParReuse, kWritten, kBufferWidth };

inline constexpr int kMaxBuffers = 5;
inline constexpr int kNodeWidth = kBuffers + kMaxBuffers * kBufferWidth;

// The column of value `column` (BufferColumn) of buffer slot `slot`.
constexpr int BufferColumnOf(int slot, int column) {
  return kBuffers + slot * kBufferWidth + column;
}

// One row per loop, in program order (LoopNest::loops), each kNodeWidth long.
std::vector<std::vector<float>> ItervarRows(const LoopNest& nest, const TouchTable& touches);

}  // namespace tessel::costmodels
