#pragma once

#include <absl/status/statusor.h>

#include <memory>

#include "compiler/target/llvm_target.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace tessel::codegen::llvm_backend {

// A TargetMachine for target (position-independent code, so objects link into shared libraries).
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(
    const target::LlvmTarget& target);

}  // namespace tessel::codegen::llvm_backend
