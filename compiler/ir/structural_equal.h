#pragma once

#include <cstddef>

#include "compiler/ir/stmt.h"

namespace tessel::ir {

// Structural equality: the same node kinds, types and fields, recursively. Variables bound inside
// the compared trees (loop variables, Let/LetStmt variables, Allocate and BufferRealize buffers,
// reduction axes, reducer arguments) are equal when bound at corresponding places, whatever their
// names. Free variables must be the same variable, unless map_free_vars, in which case they must
// correspond one to one in order of first appearance. Buffers compare by their data variable,
// type, shape, strides and scope; producers by identity.
bool StructuralEqual(const Expr& a, const Expr& b, bool map_free_vars = false);
bool StructuralEqual(const Stmt& a, const Stmt& b, bool map_free_vars = false);

// A hash consistent with StructuralEqual in both modes: variables hash by order of first
// appearance, never by identity or name.
size_t StructuralHash(const Expr& e);
size_t StructuralHash(const Stmt& s);

}  // namespace tessel::ir
