#pragma once

#include <cmath>
#include <vector>

#include "costmodels/features/loop_nest.h"

// How each loop of a LoopNest touches each buffer: the touch pattern AutoTVM's itervar and curve
// features describe (PAPER.md §2 "Features").
namespace tessel::costmodels {

// One buffer under one loop, over one full execution of the loop (all its iterations, the
// enclosing loops' variables fixed).
struct BufferTouch {
  bool touched = false;
  bool written = false;
  // Element accesses (a vector access counts its lanes).
  double touches = 0;
  // Distinct elements touched (an estimate: the largest footprint of one access of the buffer;
  // IndexForms::Values).
  double count = 0;
  // |change of the flat index| when the loop's variable steps by one: the smallest nonzero one
  // over the accesses; 0 when no access depends on the loop.
  double stride = 0;
  // The same two with the nearest enclosing parallel loop (kParallel, or a thread binding other
  // than vthread) moved innermost: what all threads together touch at this level (a buffer made
  // inside the parallel loop counts once per iteration of it). Equal to touches and count for a
  // loop without an enclosing parallel loop.
  double par_touches = 0;
  double par_count = 0;

  double reuse() const { return count > 0 ? touches / count : 0; }
  double par_reuse() const { return par_count > 0 ? par_touches / par_count : 0; }
};

// Count and touches of one access over its enclosing loops: level 0 is one execution of the access
// alone, level k adds its k innermost enclosing loops; the last level has all of them.
struct TouchLevel {
  double count;
  double touches;
};

struct TouchTable {
  int num_buffers = 0;
  std::vector<BufferTouch> by_loop;             // [loop * num_buffers + buffer]
  std::vector<BufferTouch> program;             // [buffer]: the whole function
  std::vector<std::vector<TouchLevel>> chains;  // [access]

  const BufferTouch& at(int loop, int buffer) const { return by_loop[loop * num_buffers + buffer]; }
};

TouchTable ComputeTouches(const LoopNest& nest);

// Feature values go through sign(x) * log2(|x| + 1).
inline float Slog(double x) {
  return static_cast<float>(x < 0 ? -std::log2(1 - x) : std::log2(1 + x));
}

}  // namespace tessel::costmodels
