#pragma once

#include <absl/status/statusor.h>

#include "compiler/ir/stmt.h"

// Unroll: loops of ForKind::kUnrolled become straight-line copies of their body.
//
// Takes: a statement whose kUnrolled loops have constant extents.
//
// Returns: the statement with every kUnrolled loop, and every kSerial loop whose extent is a
// constant no larger than auto_max_extent, replaced (innermost first) by the sequence of
// `extent` copies of its body, copy k having the loop variable replaced by min + k. Every copy
// binds fresh variables in place of those the body binds (renew_defs.h), so each variable stays
// bound once. A loop of extent 0 becomes Evaluate(0), the no-op statement.
// auto_max_extent = 0 unrolls only the loops the schedule marked.
//
// Two schedule pragmas (AttrStmt "pragma_<name>", stage.pragma) widen that inside the axis they
// annotate, and are consumed: `auto_unroll_max_step` N also takes every serial loop with a
// constant extent whose steps (the statements it runs once unrolled: its extent times its
// body's steps; a loop without a constant extent or bound to threads counts as too many) are at
// most N; `unroll_explicit` 0 leaves the loops that auto_unroll_max_step takes as loops marked
// kUnrolled (the C printers ask their compiler to unroll them), 1 (the default) expands them.
//
// Errors: a kUnrolled loop whose extent is not a constant (or is negative) is refused with an
// InvalidArgument status naming the loop variable; a pragma whose value is not a constant too.
namespace tessel::transforms {

absl::StatusOr<ir::Stmt> Unroll(ir::Stmt stmt, int auto_max_extent = 0);

}  // namespace tessel::transforms
