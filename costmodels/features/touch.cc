#include "costmodels/features/touch.h"

#include <algorithm>
#include <cmath>

namespace tessel::costmodels {
namespace {

bool IsParallel(const Loop& loop) {
  return loop.kind == ir::ForKind::kParallel ||
         (loop.kind == ir::ForKind::kThreadBinding && loop.thread_tag.rfind("vthread", 0) != 0);
}

// For each loop, the nearest parallel loop strictly enclosing it, or -1.
std::vector<int> EnclosingParallel(const LoopNest& nest) {
  std::vector<int> result(nest.loops.size(), -1);
  for (size_t i = 0; i < nest.loops.size(); ++i) {
    const int p = nest.loops[i].parent;
    if (p >= 0) result[i] = IsParallel(nest.loops[p]) ? p : result[p];
  }
  return result;
}

// [loop * buffers + buffer]: whether the buffer is made inside the loop.
std::vector<char> AllocatedInside(const LoopNest& nest) {
  const size_t buffers = nest.buffers.size();
  std::vector<char> inside(nest.loops.size() * buffers, 0);
  for (size_t b = 0; b < buffers; ++b) {
    for (int l = nest.alloc_loops[b]; l >= 0; l = nest.loops[l].parent) inside[l * buffers + b] = 1;
  }
  return inside;
}

}  // namespace

TouchTable ComputeTouches(const LoopNest& nest) {
  const int num_loops = static_cast<int>(nest.loops.size());
  TouchTable table;
  table.num_buffers = static_cast<int>(nest.buffers.size());
  table.by_loop.resize(static_cast<size_t>(num_loops) * table.num_buffers);
  table.program.resize(table.num_buffers);
  table.chains.reserve(nest.accesses.size());
  const std::vector<int> parallel = EnclosingParallel(nest);
  const std::vector<char> inside = AllocatedInside(nest);
  LoopSet set{&nest.extents, std::vector<char>(num_loops, 0)};
  for (const Access& a : nest.accesses) {
    std::vector<TouchLevel> chain;
    chain.reserve(a.loop < 0 ? 1 : nest.loops[a.loop].depth + 2);
    double touches = a.lanes;
    double count = nest.forms.Values(a.index, set);
    chain.push_back({count, touches});
    for (int l = a.loop; l >= 0; l = nest.loops[l].parent) {
      set.in[l] = 1;
      touches *= static_cast<double>(nest.loops[l].extent);
      count = nest.forms.Values(a.index, set);
      chain.push_back({count, touches});
      BufferTouch& t = table.by_loop[static_cast<size_t>(l) * table.num_buffers + a.buffer];
      t.touched = true;
      t.written |= a.write;
      t.touches += touches;
      t.count = std::max(t.count, count);
      const double stride = std::abs(nest.forms.Derivative(a.index, l));
      if (stride > 0 && (t.stride == 0 || stride < t.stride)) t.stride = stride;
      if (const int p = parallel[l]; p >= 0) {
        if (inside[static_cast<size_t>(p) * table.num_buffers + a.buffer]) {
          // Made inside the parallel loop: each of its iterations has its own copy.
          t.par_count = std::max(t.par_count, count * static_cast<double>(nest.loops[p].extent));
        } else {
          set.in[p] = 1;
          t.par_count = std::max(t.par_count, nest.forms.Values(a.index, set));
          set.in[p] = 0;
        }
        t.par_touches += touches * static_cast<double>(nest.loops[p].extent);
      } else {
        t.par_count = t.count;
        t.par_touches = t.touches;
      }
    }
    for (int l = a.loop; l >= 0; l = nest.loops[l].parent) set.in[l] = 0;
    BufferTouch& p = table.program[a.buffer];
    p.touched = true;
    p.written |= a.write;
    p.touches += touches;
    p.count = std::max(p.count, count);
    p.par_touches = p.touches;
    p.par_count = p.count;
    table.chains.push_back(std::move(chain));
  }
  return table;
}

}  // namespace tessel::costmodels
