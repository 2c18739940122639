#pragma once

#include <absl/status/statusor.h>

#include "compiler/ir/stmt.h"

// InjectVirtualThread: virtual threads become one interleaved instruction stream (PAPER.md §3,
// latency hiding).
//
// Takes: a statement after storage flattening (allocations are flat, accesses to them carry one
// index). A virtual thread is a For loop of kind kThreadBinding with thread_tag "vthread" and a
// constant extent n >= 1 (the number of virtual threads), loop variable v. The schedule
// guarantees that the n threads are independent: no thread reads what another writes, and a
// statement that does not depend on v (defined below) computes the same effect in every thread,
// so running it once is the same as running it n times.
//
// Returns: the statement without vthread loops (innermost first). The body of each is emitted
// once, with the n thread copies pushed as deep as possible. A statement depends on the thread
// if it uses v, a variable bound to a thread-dependent value, or a per-thread buffer. Working
// down from the body:
// - a statement that does not depend on the thread is emitted once, unchanged;
// - a sequence becomes the sequence of its interleaved statements;
// - a loop, if or attribute whose bounds, condition or value do not depend on the thread is
//   emitted once around its interleaved body: a loop over k holds the n copies of each statement
//   of its body, so the loads of one thread sit next to the compute of the other;
// - a LetStmt or AssertStmt whose value depends on the thread becomes n nested ones (one per
//   thread, each binding a fresh variable) around its interleaved body;
// - an Allocate of size N that some thread fills differently (a store into it depends on the
//   thread, directly, through another such buffer, or under a loop range, condition or let that
//   does; or its element is the first buffer argument of an impure call that depends on the
//   thread: such a call writes that buffer and reads the others, as a tensor intrinsic passes
//   its output tile first) becomes one Allocate (same data variable) of N * n elements; thread t uses elements
//   [t * N, (t + 1) * N), its accesses indexed t * N + index. One that every thread fills alike
//   (a shared tile relaxed over the vthreads by bound inference) stays one buffer of N, and the
//   statements that fill it run once;
// - any other statement that depends on the thread (a store, an Evaluate, a loop with
//   thread-dependent bounds, an Allocate of thread-dependent size or whose data is passed to a
//   call) becomes its n copies in thread order.
// Thread t's copies have v replaced by min + t, and bind fresh variables for every variable they
// bind, so every variable stays bound once.
//
// Errors: a vthread loop whose extent is not a positive constant is refused with an
// InvalidArgument status naming the loop variable.
namespace tessel::transforms {

absl::StatusOr<ir::Stmt> InjectVirtualThread(ir::Stmt stmt);

}  // namespace tessel::transforms
