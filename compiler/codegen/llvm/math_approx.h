#pragma once

#include <llvm/IR/IRBuilder.h>

// TEMPORARY (replaced by the math helper's version).
namespace tessel::codegen::llvm_backend {
llvm::Value* EmitExp(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitLog(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitTanh(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitSigmoid(llvm::IRBuilder<>& b, llvm::Value* x);
}  // namespace tessel::codegen::llvm_backend
