#pragma once

#include "compiler/ir/stmt.h"

// ThreadSync: inserts the barriers threads of a GPU block need when they communicate through
// "shared" memory.
//
// Takes: a statement after storage flattening (or before: accesses are matched by buffer, not by
// index). Threads are For loops of kind kThreadBinding with a thread_tag "threadIdx.*"; a block
// is the body of a "blockIdx.*" loop (or the whole statement). Shared memory is every buffer
// whose scope is "shared".
//
// Returns: the statement with Evaluate(storage_sync("shared")) inserted so that, on every path,
// a barrier separates
// - a store to a shared buffer from a later load of it (read after write), and
// - a load of a shared buffer from a later store to it (write after read), including a load in
//   one iteration of a loop and a store in the next;
// and nowhere else: no barrier is inserted where no shared buffer is both written and read.
// Accesses are compared per buffer, not per element (which thread touches which element is not
// analysed), and a call receiving a shared buffer's data counts as a load and a store. An
// existing storage_sync("shared") is a barrier too.
//
// Placement: the barrier goes right before the statement of a sequence that would complete
// the hazard. Inside a thread region a compound statement (an if, let, allocate, ...) gets it in
// front (one barrier rather than one in each branch), and so does a loop, unless the loop's body,
// planned with the hazard pending, needs no more barriers than it needs anyway (then the body's own
// barriers order it). Outside thread regions the pass looks into a statement to place the barrier
// inside the thread loop that needs it. Loops iterate to a fixed point, so a hazard carried from
// the end of one iteration to the start of the next gets a barrier at the top of the body. A
// barrier is never placed inside a loop or if whose bounds or condition depend on a thread index
// (threads would diverge at it): such a statement is one unit, with a barrier before it when
// needed.
//
// Limitation: a hazard entirely inside such a thread-dependent statement is not synchronized
// (the schedule must not produce one).
namespace tessel::transforms {

ir::Stmt ThreadSync(ir::Stmt stmt);

}  // namespace tessel::transforms
