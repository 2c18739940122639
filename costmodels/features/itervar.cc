#include "costmodels/features/itervar.h"

#include <algorithm>
#include <numeric>

namespace tessel::costmodels {
namespace {

int KindColumn(const Loop& loop) {
  switch (loop.kind) {
    case ir::ForKind::kSerial:
      return kKindSerial;
    case ir::ForKind::kParallel:
      return kKindParallel;
    case ir::ForKind::kVectorized:
      return kKindVectorized;
    case ir::ForKind::kUnrolled:
      return kKindUnrolled;
    case ir::ForKind::kThreadBinding:
      break;
  }
  static constexpr struct {
    const char* tag;
    int column;
  } kTags[] = {{"blockIdx.x", kKindBlockIdxX},   {"blockIdx.y", kKindBlockIdxY},
               {"blockIdx.z", kKindBlockIdxZ},   {"threadIdx.x", kKindThreadIdxX},
               {"threadIdx.y", kKindThreadIdxY}, {"threadIdx.z", kKindThreadIdxZ}};
  for (const auto& t : kTags) {
    if (loop.thread_tag == t.tag) return t.column;
  }
  return loop.thread_tag.rfind("vthread", 0) == 0 ? kKindVthread : kKindOtherThread;
}

}  // namespace

std::vector<std::vector<float>> ItervarRows(const LoopNest& nest, const TouchTable& touches) {
  const int num_loops = static_cast<int>(nest.loops.size());
  std::vector<std::vector<float>> rows;
  rows.reserve(num_loops);
  std::vector<double> trips(num_loops);
  std::vector<int> order(touches.num_buffers);
  for (int i = 0; i < num_loops; ++i) {
    const Loop& loop = nest.loops[i];
    trips[i] = static_cast<double>(loop.extent) * (loop.parent < 0 ? 1.0 : trips[loop.parent]);
    std::vector<float> row(kNodeWidth, 0.0f);
    row[kExtent] = Slog(static_cast<double>(loop.extent));
    row[kDepth] = Slog(loop.depth);
    row[kTripCount] = Slog(trips[i]);
    row[KindColumn(loop)] = 1;
    for (int k = 0; k < kNumOpKinds; ++k) row[kOpsAdd + k] = Slog(loop.ops[k]);
    // The buffers under this loop, most accesses first (a stable sort keeps first access order
    // among equal names).
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const BufferTouch& x = touches.at(i, a);
      const BufferTouch& y = touches.at(i, b);
      if (x.touched != y.touched) return x.touched;
      if (x.touches != y.touches) return x.touches > y.touches;
      return nest.buffers[a] < nest.buffers[b];
    });
    for (int slot = 0; slot < kMaxBuffers && slot < touches.num_buffers; ++slot) {
      const BufferTouch& t = touches.at(i, order[slot]);
      if (!t.touched) break;
      row[BufferColumnOf(slot, kStride)] = Slog(t.stride);
      row[BufferColumnOf(slot, kCount)] = Slog(t.count);
      row[BufferColumnOf(slot, kReuse)] = Slog(t.reuse());
      row[BufferColumnOf(slot, kParCount)] = Slog(t.par_count);
      row[BufferColumnOf(slot, kParReuse)] = Slog(t.par_reuse());
      row[BufferColumnOf(slot, kWritten)] = t.written ? 1.0f : 0.0f;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace tessel::costmodels
