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
// Errors: a kUnrolled loop whose extent is not a constant (or is negative) is refused with an
// InvalidArgument status naming the loop variable.
namespace tessel::transforms {

absl::StatusOr<ir::Stmt> Unroll(ir::Stmt stmt, int auto_max_extent = 0);

}  // namespace tessel::transforms
