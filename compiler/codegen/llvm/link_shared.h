#pragma once

#include <absl/status/status.h>

#include <string>

// Writing compiled code to files.
namespace tessel::codegen::llvm_backend {

// Writes bytes to path through a temporary file in the same folder and a rename, so that a
// failure leaves no partial file.
absl::Status WriteFileAtomically(const std::string& path, const std::string& bytes);

// Links a host object file (bytes) into the shared library path with the system compiler driver
// `cc` (and libm); the linker's messages are in the error.
absl::Status LinkSharedLibrary(const std::string& object, const std::string& path);

}  // namespace tessel::codegen::llvm_backend
