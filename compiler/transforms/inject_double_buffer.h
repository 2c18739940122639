#pragma once

#include "compiler/ir/stmt.h"

// InjectDoubleBuffer: a buffer refilled every iteration of a loop gets two copies, so the fill
// for the next iteration can overlap the reads of the current one.
//
// Takes: a statement after storage flattening, with buffers marked for double buffering by
//   attr [B.data] double_buffer_scope = ... { allocate B[N] { ... } }   (attr::kDoubleBufferScope)
// in either of two places:
// A. around a loop that fills and reads B:
//      attr [B] double_buffer_scope { allocate B[N] {
//        ... for (k, min, extent) { S1 ... W ... R1 ... Rm } ... } }
// B. among the top statements of a serial loop's body (what schedule lowering emits for a
//    compute_at stage), with N not depending on k:
//      for (k, min, extent) { ... attr [B] double_buffer_scope { allocate B[N] { ... W R ... } } }
//    The scope and its Allocate move out of the loop (B's contents are undefined at the start
//    of every iteration anyway), the statements inside join the loop body's sequence, and then
//    form A applies. Several such scopes in one loop (nested, as lowering nests them) move out
//    together.
//
// Pattern, for the loop over k (else B is refused: its attribute and Allocate are left as they
// were):
// 1. every access of B in the Allocate's body is inside that one serial loop, flat (one index),
//    and B's data is not used otherwise (no call receives it);
// 2. the loop's body is a sequence in which exactly one statement W stores to B; W stores to
//    nothing else, does not load B and holds no impure call; the statements S before W do not
//    load B, some statement R after W loads B;
// 3. no statement of the body other than W stores to a buffer that W loads (so W may run one
//    iteration early, before the S of its own iteration);
// 4. the statements on the path from the Allocate down to the loop are loops, ifs, lets,
//    attributes, asserts or allocates whose own bounds, conditions and values do not use B, and
//    B occurs in only one statement of each sequence on that path.
//
// Returns: the attribute removed and
//
//   allocate B[N * 2] {
//     ... W[k := min]                           (prefetch into copy 0; guarded by
//                                               if (extent > 0) unless extent is a constant)
//         for (k, min, extent) {
//           S
//           if (k + 1 < min + extent) { W[k := k + 1], B indices + floormod(k + 1 - min, 2) * N }
//           R, B indices + floormod(k - min, 2) * N
//         } ...
//   }
//
// Both copies of W bind fresh variables. Iteration k reads the copy that iteration k - 1 (or the
// prefetch) filled, while it fills the other for iteration k + 1.
namespace tessel::transforms {

ir::Stmt InjectDoubleBuffer(ir::Stmt stmt);

}  // namespace tessel::transforms
