#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/runtime/module.h"
#include "compiler/target/target.h"

// The file a compiled model keeps its kernels in, by the kind of its target, and how it is read
// back: a shared library for `llvm` ("kernels.so"), a cubin with its metadata beside it
// ("kernels.cubin", "kernels.cubin.json") for `cuda`, OpenCL C with its metadata
// ("kernels.cl", "kernels.cl.json") for `opencl`: what each module kind's Save writes.
namespace tessel::driver {

std::string KernelLibraryFile(const target::Target& target);

// Errors: those of the module kind's loader, naming the file.
absl::StatusOr<runtime::Module> LoadKernelLibrary(const target::Target& target,
                                                  const std::string& path);

}  // namespace tessel::driver
