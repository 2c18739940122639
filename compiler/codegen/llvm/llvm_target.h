#pragma once

#include <absl/status/statusor.h>

#include <memory>
#include <string>

#include "compiler/driver/target.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

// An `llvm` target string resolved against LLVM: triple, CPU and features (host detection for
// -mcpu=native), optimization level and fast-math.
namespace tessel::codegen::llvm_backend {

struct LlvmTarget {
  std::string triple;
  std::string cpu;       // an LLVM CPU name, "generic" by default
  std::string features;  // "+avx2,+fma,..." as LLVM takes them
  int opt_level = 3;
  bool fast_math = false;    // every fast-math flag
  bool fp_contract = false;  // fuse a*b+c (implied by fast_math)
  bool is_host = false;      // the code can run in this process
  int vector_bits = 128;     // the widest vector register the features give

  // The target as a string that resolves to the same target (CPU and features spelled out).
  std::string ToString() const;
};

// Resolves an `llvm` target; errors name an unknown triple or CPU, or -mcpu=native for another
// architecture.
absl::StatusOr<LlvmTarget> ResolveLlvmTarget(const driver::Target& target);

// A TargetMachine for target (position-independent code, so objects link into shared libraries).
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const LlvmTarget& target);

// Registers LLVM's targets once per process.
void InitializeLlvm();

}  // namespace tessel::codegen::llvm_backend
