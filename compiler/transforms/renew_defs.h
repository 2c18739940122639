#pragma once

#include <unordered_map>

#include "compiler/ir/stmt.h"

// Copying a statement so that the copy can sit beside the original in one function.
//
// Well-formedness (compiler/ir/well_formed.h) requires every variable to be bound once. Passes
// that duplicate code (unroll, inject_virtual_thread, inject_double_buffer, vectorize's
// scalarized loops) therefore bind fresh variables in every copy but one.
namespace tessel::transforms {

using VarMap = std::unordered_map<const ir::VarNode*, ir::Expr>;

// A copy of s in which
// - every variable s binds (For and Let/LetStmt variables, the data of Allocate and BufferRealize
//   buffers, the IterVar of a thread_extent or virtual_thread AttrStmt) is replaced by a fresh
//   variable of the same name and type, and every use of it by the fresh one;
// - every use of a free variable in `subst` is replaced by its expression, including uses in the
//   shape, strides and elem_offset of the buffers s allocates or accesses.
// Buffers whose data variable or layout changes are rebuilt with the new fields (one new Buffer
// per original Buffer node); AttrStmts whose node is a renamed data variable or buffer follow.
// Reduce nodes are copied unchanged (they bind nothing after lowering).
ir::Stmt RenewDefs(const ir::Stmt& s, const VarMap& subst = {});

}  // namespace tessel::transforms
