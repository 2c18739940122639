#include "compiler/codegen/cuda/codegen_cuda.h"

#include "compiler/codegen/cuda/cuda_dialect.h"

namespace tessel::codegen::cuda {

absl::StatusOr<GeneratedSource> GenerateCuda(const std::vector<ir::PrimFunc>& funcs) {
  return c_source::GenerateSource(funcs, CudaDialect());
}

}  // namespace tessel::codegen::cuda
