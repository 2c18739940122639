#include "compiler/codegen/opencl/codegen_opencl.h"

#include "compiler/codegen/opencl/opencl_dialect.h"

namespace tessel::codegen::opencl {

absl::StatusOr<c_source::GeneratedSource> GenerateOpencl(const std::vector<ir::PrimFunc>& funcs) {
  return c_source::GenerateSource(funcs, OpenclDialect());
}

}  // namespace tessel::codegen::opencl
