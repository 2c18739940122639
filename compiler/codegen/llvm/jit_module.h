#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/runtime/function_signature.h"
#include "compiler/runtime/module.h"
#include "compiler/target/llvm_target.h"

// A runtime::Module over an object file: linked in memory by ORC LLJIT when the target is this
// host, kept as bytes otherwise (an AArch64 module can be saved, not run). Save writes the object
// (".o") or links a shared library (".so", host targets only, with the system C compiler driver
// `cc`) that runtime::Module::Load reads back.
namespace tessel::codegen::llvm_backend {

absl::StatusOr<runtime::Module> MakeObjectModule(std::string object,
                                                 std::vector<runtime::FunctionSignature> signatures,
                                                 const target::LlvmTarget& target);

}  // namespace tessel::codegen::llvm_backend
