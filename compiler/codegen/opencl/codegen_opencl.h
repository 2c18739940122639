#pragma once

#include <absl/status/statusor.h>

#include <vector>

#include "compiler/codegen/c_source/generate.h"
#include "compiler/ir/stmt.h"

// Lowered functions to OpenCL C 1.2: one `__kernel` per PrimFunc, named after it, printed by the
// shared C-like printer (c_source/generate.h says what is accepted and how it prints) in the
// OpenCL dialect (opencl_dialect.h says the words). A function's blockIdx loops are its
// work-group ids and its threadIdx loops its local ids: launched with a global size of
// grid x block and a local size of block per dimension.
namespace tessel::codegen::opencl {

absl::StatusOr<c_source::GeneratedSource> GenerateOpencl(const std::vector<ir::PrimFunc>& funcs);

}  // namespace tessel::codegen::opencl
