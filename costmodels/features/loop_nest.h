#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/stmt.h"
#include "costmodels/features/index_form.h"

// What feature extraction reads from a function of transforms::LowerToLoopNest: its loops, the
// buffer accesses inside them with their flat indices as linear forms (index_form.h), and the
// floating-point arithmetic each loop runs.
//
// Takes a function before or after storage flattening. A multi-dimensional access is flattened
// here, row-major: over the accessed buffer's strides when it has them, else over the extents of
// the BufferRealize that makes it, else over its shape (constant extents; any other counts its
// largest value), each index counted from its realize's min. Constant offsets (elem_offset) are
// left out: nothing here depends on where an index starts.
namespace tessel::costmodels {

enum OpKind { kFloatAdd, kFloatMul, kFloatDiv, kFloatOther, kNumOpKinds };
using OpCounts = std::array<double, kNumOpKinds>;

struct Loop {
  std::string name;
  // The For's extent when constant; otherwise its largest value over the enclosing loops' ranges
  // (at least 1).
  int64_t extent = 1;
  ir::ForKind kind = ir::ForKind::kSerial;
  std::string thread_tag;
  int parent = -1;  // -1: outside any loop
  int depth = 0;    // number of enclosing loops
  std::vector<int> children;
  // Floating-point operations one iteration runs, inner loops included (each vector lane counts);
  // add counts Add and Sub, other counts Min, Max, comparisons, Select and float intrinsics.
  OpCounts ops{};
};

struct Access {
  int buffer;  // index into LoopNest::buffers
  int loop;    // the innermost enclosing loop, -1 for none
  IndexForm index;
  bool write;
  int lanes;  // elements one execution touches (a vector access touches its lanes)
};

struct LoopNest {
  std::vector<Loop> loops;           // in program order (pre-order: a loop before its body)
  std::vector<int64_t> extents;      // loops[i].extent, as LoopSet wants them
  std::vector<std::string> buffers;  // in order of first realize, allocate or access
  // Per buffer: the innermost loop enclosing its BufferRealize or Allocate, -1 for a parameter or
  // a buffer made outside every loop. Iterations of a parallel loop around it have their own
  // copies.
  std::vector<int> alloc_loops;
  std::vector<Access> accesses;  // in program order
  OpCounts ops{};                // of the whole function
  IndexForms forms;
};

LoopNest AnalyzeLoopNest(const ir::PrimFunc& func);

}  // namespace tessel::costmodels
