#pragma once

#include <unordered_set>

#include "compiler/ir/stmt.h"

// Whether a piece of IR depends on some variables. A variable counts as used where it appears as
// an expression, where it is the data of a buffer that is loaded or stored, or where it appears in
// the shape of an Allocate. Variables are matched by node identity. The lowering passes use this
// to decide what depends on a loop or thread variable.
namespace tessel::transforms {

using VarSet = std::unordered_set<const ir::VarNode*>;

bool UsesVar(const ir::Expr& e, const VarSet& vars);
bool UsesVar(const ir::Stmt& s, const VarSet& vars);

// Whether s uses a buffer's data variable other than through loads and stores of the buffer
// (passed to a call_extern, bound by a Let, ...): its accesses are then not all visible.
bool DataEscapes(const ir::Stmt& s, const ir::VarNode* data);

}  // namespace tessel::transforms
