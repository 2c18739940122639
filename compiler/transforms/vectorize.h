#pragma once

#include <absl/status/statusor.h>

#include "compiler/ir/stmt.h"

// Vectorize: loops of ForKind::kVectorized become vector code.
//
// Takes: a statement, usually after storage flattening. Each kVectorized loop must have a
// constant extent (its lane count). The schedule guarantees that the loop's iterations are
// independent (only data-parallel axes are vectorized): the pass does not check loop-carried
// dependences through memory, and it may reorder statements of different iterations.
//
// Returns: the statement with every kVectorized loop (innermost first) replaced as follows. The
// loop variable becomes ramp(min, 1, lanes); a scalar meeting a vector is broadcast;
// ramp + broadcast, ramp - broadcast and ramp * broadcast fold into one ramp (so an index
// i * 4 + ramp(0, 1, 4) stays a ramp); loads and stores whose last index becomes a vector load
// and store vectors; Select, comparisons, casts, logical operators and pure intrinsics act lane
// by lane. A statement that cannot become vector code is scalarized: it is kept in a serial loop
// of the same range (the first such loop reuses the loop variable, later ones bind fresh ones),
// placed where the statement was. Scalarized are: stores to an address that does not depend
// on the lane (a scalar index), stores or loads where an index other than the last is a
// vector, an IfThenElse, AssertStmt or LetStmt whose condition or value is a vector, an inner
// loop whose bounds depend on the lanes, an Allocate or BufferRealize, any statement holding an
// impure call, an if_then_else with a vector condition, a Let expression binding a vector, a
// vector operand already present, or a Reduce/ProducerLoad that depends on the lanes. Other
// statements are vectorized around the scalarized ones (loops and ifs with scalar bounds and
// conditions stay, their bodies vectorized). A kVectorized loop of extent 1 becomes its body
// with the variable replaced by min.
//
// Errors: a kVectorized loop whose extent is not a constant, or is below 1, is refused with an
// InvalidArgument status naming the loop variable.
namespace tessel::transforms {

absl::StatusOr<ir::Stmt> Vectorize(ir::Stmt stmt);

}  // namespace tessel::transforms
