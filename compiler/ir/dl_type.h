#pragma once

#include <dlpack/dlpack.h>

#include "compiler/ir/dtype.h"

namespace tessel::ir {

// The DLPack type of values of type t in memory: bool is one byte (runtime::kDLBool), a handle is
// an opaque 64-bit handle.
DLDataType ToDLType(DataType t);

}  // namespace tessel::ir
