#pragma once

#include "compiler/ir/stmt.h"

// StorageRewrite: hoists allocations out of loops and lets buffers whose lifetimes do not overlap
// share memory.
//
// Takes: a PrimFunc after storage flattening (every Allocate is flat; accesses to allocated
// buffers carry one index). The contents of fresh storage are undefined (no pass may assume
// zeros), so an allocation made once before a loop may stand for one made in every iteration.
//
// Regions: the function body, the body of every loop that is not kSerial (parallel, vectorized,
// unrolled, thread-bound: its iterations may run at once or as different threads), and the body
// of every AttrStmt. Each region is rewritten on its own; nothing moves across a region's border.
//
// Returns: the PrimFunc with, in every region:
// 1. Hoisting. Every Allocate of the region (not inside a nested region) whose size uses no
//    variable bound inside the region (loop or let variables around it) is removed from its
//    place and re-emitted at the top of the region, as a chain of Allocates around the region's
//    body. Every other Allocate moves to the top of the body of the innermost loop or let whose
//    variable its size uses. So an allocation leaves every serial loop, if, let and sequence
//    whose variables its size does not use.
// 2. Reuse, among the Allocates hoisted to the region's top. The program is numbered in order
//    (each statement one position; a nested region one position). The lifetime of a hoisted buffer
//    is the interval from its first to its last access, where an access inside a loop that lies
//    inside the buffer's original Allocate counts as the whole loop (its value may live across
//    iterations), while a loop that enclosed the original Allocate does not (each iteration had a
//    fresh buffer). In order of first access, a buffer joins an earlier group if the group's
//    buffers have the same scope and dtype and all their lifetimes end before it starts; a group
//    becomes one Allocate (the data variable, name and buffer of its first member, the max of its
//    members' sizes), and the accesses of the other members use it instead (same indices: same
//    dtype). Groups are emitted in the order their first members appeared.
// Never merged: buffers of different scopes or dtypes, function parameters (never allocated),
// buffers whose data variable is used other than by loads and stores (passed to a call, named by
// an attribute), and buffers with multi-index accesses.
namespace tessel::transforms {

ir::PrimFunc StorageRewrite(ir::PrimFunc func);

}  // namespace tessel::transforms
