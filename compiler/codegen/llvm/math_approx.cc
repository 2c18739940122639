#include "compiler/codegen/llvm/math_approx.h"
// TEMPORARY (replaced by the math helper's version).
namespace tessel::codegen::llvm_backend {
llvm::Value* EmitExp(llvm::IRBuilder<>& b, llvm::Value* x) {
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
}
llvm::Value* EmitLog(llvm::IRBuilder<>& b, llvm::Value* x) {
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
}
llvm::Value* EmitTanh(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* e = EmitExp(b, b.CreateFMul(x, llvm::ConstantFP::get(x->getType(), 2.0)));
  llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
  return b.CreateFDiv(b.CreateFSub(e, one), b.CreateFAdd(e, one));
}
llvm::Value* EmitSigmoid(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
  return b.CreateFDiv(one, b.CreateFAdd(one, EmitExp(b, b.CreateFNeg(x))));
}
}  // namespace tessel::codegen::llvm_backend
