#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <string>

#include "compiler/runtime/opencl/opencl_module.h"

// The files of a saved OpenCL module (opencl_module.h's Save and LoadOpenclModule): the OpenCL C
// source at `path` and its metadata at `path + ".json"`:
//   {"format": "tessel-opencl-module", "version": 1, "signatures": <SignaturesToJson>,
//    "kernels": [{"name": ..., "grid": ["$3 63 + 64 /", "1", "1"], "block": ["64", "1", "1"]}]}
// Each file is written to a temporary name and renamed, so a failed save leaves no half file.
namespace tessel::runtime::opencl {

absl::Status SaveModuleFiles(const OpenclModuleData& data, const std::string& path);
absl::StatusOr<OpenclModuleData> LoadModuleFiles(const std::string& path);

}  // namespace tessel::runtime::opencl
