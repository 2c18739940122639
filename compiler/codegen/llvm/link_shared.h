#pragma once

#include <absl/status/status.h>

#include <string>

// Writing compiled code to files.
namespace tessel::codegen::llvm_backend {

// Links a host object file (bytes) into the shared library path with the system compiler driver
// `cc` (and libm); the linker's messages are in the error.
absl::Status LinkSharedLibrary(const std::string& object, const std::string& path);

}  // namespace tessel::codegen::llvm_backend
