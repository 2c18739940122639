#pragma once

#include "compiler/ir/expr.h"

// Constant folding (private to compiler/arith). A fold gives exactly what op.h's operators give for
// the same immediates: integer results wrap to the type's width, floor and truncating division
// round as node.h states, float arithmetic is done in double and stored through FloatImm (float32
// rounds). Where op.h's own folding would be undefined behaviour (INT64_MIN / -1, a float out of
// int64's range converted to an integer) the integer result wraps, or the node is left unfolded.
// Nothing is folded for division by zero, for unsigned 64-bit values of 2^63 and above in
// division, min, max and comparisons (op.h reads them as negative), or for the float intrinsics
// (their results depend on the target's libm).
namespace tessel::arith::internal {

// a `kind` b for two scalar immediates of one type; undefined when not folded.
ir::Expr FoldBinary(ir::NodeKind kind, const ir::Expr& a, const ir::Expr& b);
// value converted to dtype for a scalar immediate; undefined when not folded.
ir::Expr FoldCast(ir::DataType dtype, const ir::Expr& value);
// A call to an integer bit intrinsic (shift, and, or, xor, not, popcount) on immediates.
ir::Expr FoldBitIntrinsic(const ir::CallNode* call);

// The node a `kind` b: folded when both are immediates, else built with op.h's node constructor.
ir::Expr MakeBinary(ir::NodeKind kind, ir::Expr a, ir::Expr b);

}  // namespace tessel::arith::internal
