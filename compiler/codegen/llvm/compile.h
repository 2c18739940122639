#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/target/llvm_target.h"

namespace llvm {
class Module;
}  // namespace llvm

// From LLVM IR to machine code: the optimization pipeline and object emission.
namespace tessel::codegen::llvm_backend {

// Runs LLVM's default per-module pipeline at the target's -opt-level (O3 by default).
absl::Status Optimize(llvm::Module& module, const target::LlvmTarget& target);

// The module as a relocatable, position-independent object file for target.
absl::StatusOr<std::string> EmitObject(llvm::Module& module, const target::LlvmTarget& target);

// The module's textual IR or the target's assembly, for inspection (`tessel` dumps, tests).
std::string PrintIr(const llvm::Module& module);
absl::StatusOr<std::string> EmitAssembly(llvm::Module& module, const target::LlvmTarget& target);

}  // namespace tessel::codegen::llvm_backend
