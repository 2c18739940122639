#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <string>

#include "compiler/runtime/cuda/cuda_module.h"

// The files of a saved CUDA module (cuda_module.h's Save and LoadCudaModule): the cubin at `path`
// and its metadata at `path + ".json"`:
//   {"format": "tessel-cuda-module", "version": 1, "arch": "sm_90",
//    "signatures": <SignaturesToJson>,
//    "kernels": [{"name": ..., "grid": ["$3 63 + 64 /", "1", "1"], "block": [...],
//                 "registers": 40, "shared_bytes": 4096, "stack_bytes": 0,
//                 "spill_store_bytes": 0, "spill_load_bytes": 0, "constant_bytes": 404}]}
// Each file is written to a temporary name and renamed, so a failed save leaves no half file.
namespace tessel::runtime::cuda {

absl::Status SaveModuleFiles(const CudaModuleData& data, const std::string& path);
absl::StatusOr<CudaModuleData> LoadModuleFiles(const std::string& path);

}  // namespace tessel::runtime::cuda
