#pragma once

#include <absl/status/status.h>

#include "compiler/ir/stmt.h"

namespace tessel::ir {

// Checks that a function is well formed, or says what is wrong and where:
// 1. Defined before use: every variable used is a parameter, or bound by an enclosing For, Let,
//    LetStmt, Allocate or BufferRealize (a buffer's data), a thread_extent/virtual_thread
//    AttrStmt (its IterVar), a reduction axis or a reducer argument; a buffer accessed is a
//    parameter or allocated/realized around the access.
// 2. Defined once: no variable is bound twice anywhere in the function, nor bound and also a
//    parameter.
// 3. Scoping: a variable bound in one subtree is not used outside it.
// 4. Buffer accesses carry one index per dimension, or a single index (a flattened access).
// Lowering runs this after every pass in debug builds (compiler/transforms/pipeline.h).
absl::Status VerifyWellFormed(const PrimFunc& f);

}  // namespace tessel::ir
