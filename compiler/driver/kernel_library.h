#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/runtime/module.h"
#include "compiler/target/target.h"

// The file a compiled model keeps a module of its kernels in, by the kind of the target they were
// built for, and how it is read back: a shared library for `llvm` ("kernels.so"), a cubin with its
// metadata beside it ("kernels.cubin", "kernels.cubin.json") for `cuda`, OpenCL C with its
// metadata ("kernels.cl", "kernels.cl.json") for `opencl`, the programs as JSON
// ("kernels.vdla.json", runtime/vdla/vdla_module.h) for `vdla`: what each module kind's Save
// writes. The kinds' files differ, so a model's main library and its offload's share a folder.
namespace tessel::driver {

std::string KernelLibraryFile(const target::Target& target);

// Errors: those of the module kind's loader, naming the file.
absl::StatusOr<runtime::Module> LoadKernelLibrary(const target::Target& target,
                                                  const std::string& path);

}  // namespace tessel::driver
