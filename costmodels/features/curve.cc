#include "costmodels/features/curve.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessel::costmodels {
namespace {

// log2 of a chain's count and touches at position u in [0, 1].
TouchLevel Sample(const std::vector<TouchLevel>& chain, double u) {
  if (chain.size() == 1) return {std::log2(chain[0].count), std::log2(chain[0].touches)};
  const double x = u * static_cast<double>(chain.size() - 1);
  const size_t i = std::min(static_cast<size_t>(x), chain.size() - 2);
  const double w = x - static_cast<double>(i);
  auto lerp = [w](double a, double b) { return (1 - w) * std::log2(a) + w * std::log2(b); };
  return {lerp(chain[i].count, chain[i + 1].count), lerp(chain[i].touches, chain[i + 1].touches)};
}

// Float operations run inside loops of `kind` (outermost such loops, their whole execution),
// as a fraction of the program's.
double FractionIn(const LoopNest& nest, ir::ForKind kind) {
  double total = 0;
  for (double ops : nest.ops) total += ops;
  if (total <= 0) return 0;
  std::vector<double> trips(nest.loops.size());
  std::vector<char> inside(nest.loops.size(), 0);
  double in_kind = 0;
  for (size_t i = 0; i < nest.loops.size(); ++i) {
    const Loop& loop = nest.loops[i];
    const bool parent_inside = loop.parent >= 0 && inside[loop.parent];
    trips[i] = static_cast<double>(loop.extent) * (loop.parent < 0 ? 1.0 : trips[loop.parent]);
    inside[i] = parent_inside || loop.kind == kind;
    if (loop.kind == kind && !parent_inside) {
      for (double ops : loop.ops) in_kind += trips[i] * ops;
    }
  }
  return std::min(1.0, in_kind / total);
}

}  // namespace

std::vector<float> CurveFeatures(const LoopNest& nest, const TouchTable& touches) {
  std::vector<float> out(kCurveWidth, 0.0f);
  std::vector<int> order(touches.num_buffers);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const BufferTouch& x = touches.program[a];
    const BufferTouch& y = touches.program[b];
    if (x.touches != y.touches) return x.touches > y.touches;
    return nest.buffers[a] < nest.buffers[b];
  });
  for (int slot = 0; slot < kCurveBuffers && slot < touches.num_buffers; ++slot) {
    const int buffer = order[slot];
    float* counts = out.data() + slot * 2 * kCurvePoints;
    float* reuses = counts + kCurvePoints;
    for (int j = 0; j < kCurvePoints; ++j) {
      const double u = static_cast<double>(j) / (kCurvePoints - 1);
      double count = 0, sum = 0;
      for (size_t a = 0; a < nest.accesses.size(); ++a) {
        if (nest.accesses[a].buffer != buffer) continue;
        const TouchLevel s = Sample(touches.chains[a], u);
        count = std::max(count, std::exp2(s.count));
        sum += std::exp2(s.touches);
      }
      counts[j] = Slog(count);
      reuses[j] = Slog(count > 0 ? sum / count : 0);
    }
  }
  float* global = out.data() + kCurveBuffers * 2 * kCurvePoints;
  for (int k = 0; k < kNumOpKinds; ++k) global[kGlobalAdd + k] = Slog(nest.ops[k]);
  int64_t parallel = 0, vector = 0;
  for (const Loop& loop : nest.loops) {
    if (loop.kind == ir::ForKind::kParallel) parallel = std::max(parallel, loop.extent);
    if (loop.kind == ir::ForKind::kVectorized) vector = std::max(vector, loop.extent);
  }
  global[kGlobalParallelExtent] = Slog(static_cast<double>(parallel));
  global[kGlobalVectorExtent] = Slog(static_cast<double>(vector));
  global[kGlobalVectorizedOps] = static_cast<float>(FractionIn(nest, ir::ForKind::kVectorized));
  global[kGlobalUnrolledOps] = static_cast<float>(FractionIn(nest, ir::ForKind::kUnrolled));
  global[kGlobalLoops] = Slog(static_cast<double>(nest.loops.size()));
  return out;
}

}  // namespace tessel::costmodels
