#pragma once

#include "compiler/ir/stmt.h"

// LowerIntrinsics: rewrites intrinsics and floor division into simpler IR for backends that
// lack them.
//
// Takes: any statement (scalar or vector code).
//
// Returns: the statement with
// - sigmoid(x)  -> 1 / (1 + exp(-x)), in x's type;
// - likely(c)   -> c;
// - round(x)    -> let f = floor(x), d = x - f in select(d > 0.5 || (d == 0.5 && x >= 0),
//                  f + 1, f): halfway cases away from zero, as C's round (d is exact: x - floor(x)
//                  is representable in x's type);
// - FloorDiv(a, c), FloorMod(a, c) on integers with a constant divisor c (scalar, or broadcast
//   of one) -> truncating Div/Mod, with the sign fixed: when a is known to be non-negative (built
//   from non-negative constants, variables of loops with a non-negative constant min, +, *, min,
//   max, floordiv and floormod by positive constants, widening casts; int32 and int64 only, as
//   other integer types wrap) the division
//   is simply truncdiv(a, c) / truncmod(a, c); otherwise, with r = truncmod(a, c) and
//   q = truncdiv(a, c) bound once by Let:
//     c > 0:  floordiv = select(r < 0, q - 1, q),  floormod = select(r < 0, r + c, r)
//     c < 0:  floordiv = select(r > 0, q - 1, q),  floormod = select(r > 0, r + c, r)
//   Unsigned division is already truncating and becomes Div/Mod directly. Division by a
//   constant 0 stays as it is (undefined either way).
// Every Let bound here binds a fresh variable.
//
// What remains for backends: exp, log, sqrt, tanh, pow, fabs, floor, ceil, popcount, the shifts
// and bitwise intrinsics, if_then_else, storage_sync and call_extern; Div and Mod; FloorDiv and
// FloorMod only with a non-constant divisor (and by a constant 0); float division.
namespace tessel::transforms {

ir::Stmt LowerIntrinsics(ir::Stmt stmt);

}  // namespace tessel::transforms
