#pragma once

#include <vector>

#include "costmodels/features/loop_nest.h"
#include "costmodels/features/touch.h"

// Curve features (PAPER.md §2 "Features"): how the footprint and the reuse of each buffer grow
// as loop levels are added around its accesses, resampled to a fixed number of points, so the
// vector has kCurveWidth values for every program of every template (models can be shared across
// templates and shapes). Every value goes through Slog.
//
// For one access, level 0 is one execution of it and level k adds its k innermost enclosing
// loops (TouchTable::chains). Its levels are spread evenly over [0, 1] and log2 of the count and
// of the touches are interpolated linearly at kCurvePoints evenly spaced points. A buffer's curve
// at a point: count = the largest count of its accesses there, reuse = the sum of their touches
// / count. Layout:
//   for each of kCurveBuffers buffers, most element accesses over the program first (ties by
//   name), zeros for missing ones: kCurvePoints counts, then kCurvePoints reuses;
//   then kCurveGlobals program values (CurveGlobal).
namespace tessel::costmodels {

inline constexpr int kCurveBuffers = 4;
inline constexpr int kCurvePoints = 20;

enum CurveGlobal : int {
  kGlobalAdd,  // float adds of the whole program (Loop::ops)
  kGlobalMul,
  kGlobalDiv,
  kGlobalOther,
  kGlobalParallelExtent,  // the largest extent of a parallel loop (0 without one)
  kGlobalVectorExtent,    // the largest extent of a vectorized loop (0 without one)
  kGlobalVectorizedOps,   // fraction (0 to 1, not logged) of float operations in vectorized loops
  kGlobalUnrolledOps,     // fraction of float operations in unrolled loops
  kGlobalLoops,           // number of loops
  kCurveGlobals,
};

inline constexpr int kCurveWidth = kCurveBuffers * 2 * kCurvePoints + kCurveGlobals;

std::vector<float> CurveFeatures(const LoopNest& nest, const TouchTable& touches);

}  // namespace tessel::costmodels
