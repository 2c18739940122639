#pragma once

#include <absl/status/statusor.h>

#include <memory>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/runtime/function_signature.h"
#include "compiler/target/llvm_target.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

// Lowered IR to LLVM IR.
//
// Input: PrimFuncs after the lowering pipeline (transforms/pipeline.h): flat or multi-dimensional
// buffer accesses, scalar or vector code, serial, parallel, vectorized and unrolled loops.
// Loops bound to GPU threads and te-level nodes are refused with an error naming them.
//
// Output: one LLVM module with, per function, the entry point `i32 name(ptr slots)` of
// runtime/function_signature.h, which calls the body with typed arguments: buffer pointers are
// `noalias` (the runtime refuses overlapping tensors when one is written) and carry the buffer's
// alignment. Parallel loops are outlined into task functions run through the runtime's
// TesselParallelLaunch (static chunks; a parallel loop inside another runs serially). exp, log,
// tanh and sigmoid on float32 use math_approx.h; other float math uses LLVM intrinsics.
// Allocations up to 64 KiB with a constant size live on the stack, larger ones on the heap
// (64-byte aligned). Float operations carry fast-math flags only as the target allows.
namespace tessel::codegen::llvm_backend {

struct GeneratedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::vector<runtime::FunctionSignature> signatures;
};

// Generates funcs into one module for target; errors name the function and what cannot be
// compiled.
absl::StatusOr<GeneratedModule> GenerateModule(const std::vector<ir::PrimFunc>& funcs,
                                               const target::LlvmTarget& target);

}  // namespace tessel::codegen::llvm_backend
