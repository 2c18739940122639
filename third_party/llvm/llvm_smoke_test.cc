// LLVM 16: a function built with IRBuilder (a loop summing a float array with fused multiply-adds)
// is verified, optimised at O3, JIT-compiled by ORC LLJIT for the host, called, and checked.
#include <gtest/gtest.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <string>
#include <vector>

namespace {

// float dot(const float* a, const float* b, int n): sum of a[i] * b[i], as IR.
std::unique_ptr<llvm::Module> BuildDot(llvm::LLVMContext& ctx) {
  auto module = std::make_unique<llvm::Module>("dot_module", ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* ptr = b.getPtrTy();
  auto* type = llvm::FunctionType::get(f32, {ptr, ptr, i32}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "dot", *module);
  llvm::Value* a = fn->getArg(0);
  llvm::Value* bv = fn->getArg(1);
  llvm::Value* n = fn->getArg(2);

  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(n, b.getInt32(0)), loop, exit);

  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(i32, 2, "i");
  llvm::PHINode* acc = b.CreatePHI(f32, 2, "acc");
  i->addIncoming(b.getInt32(0), entry);
  acc->addIncoming(llvm::ConstantFP::get(f32, 0.0), entry);
  llvm::Value* x = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, a, i));
  llvm::Value* y = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, bv, i));
  llvm::Value* next_acc =
      b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {f32}, {x, y, acc}, nullptr, "next_acc");
  llvm::Value* next_i = b.CreateAdd(i, b.getInt32(1));
  i->addIncoming(next_i, loop);
  acc->addIncoming(next_acc, loop);
  b.CreateCondBr(b.CreateICmpSLT(next_i, n), loop, exit);

  b.SetInsertPoint(exit);
  llvm::PHINode* result = b.CreatePHI(f32, 2, "result");
  result->addIncoming(llvm::ConstantFP::get(f32, 0.0), entry);
  result->addIncoming(next_acc, loop);
  b.CreateRet(result);
  return module;
}

void OptimizeO3(llvm::Module& module) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

TEST(LlvmSmokeTest, BuildVerifyOptimizeJitAndCall) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = BuildDot(*ctx);
  std::string errors;
  llvm::raw_string_ostream error_stream(errors);
  ASSERT_FALSE(llvm::verifyModule(*module, &error_stream)) << errors;
  OptimizeO3(*module);
  ASSERT_FALSE(llvm::verifyModule(*module, &error_stream)) << errors;

  auto jit = llvm::orc::LLJITBuilder().create();
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  llvm::Error added =
      (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx)));
  ASSERT_FALSE(static_cast<bool>(added)) << llvm::toString(std::move(added));
  auto symbol = (*jit)->lookup("dot");
  ASSERT_TRUE(static_cast<bool>(symbol)) << llvm::toString(symbol.takeError());
  auto* dot = symbol->toPtr<float (*)(const float*, const float*, int)>();

  std::vector<float> a(1000), b(1000);
  double expected = 0;
  for (int k = 0; k < 1000; ++k) {
    a[k] = 0.5f + 0.001f * k;
    b[k] = (k % 7) - 3.0f;
    expected += static_cast<double>(a[k]) * b[k];
  }
  EXPECT_NEAR(dot(a.data(), b.data(), 1000), expected, 1e-3 * std::abs(expected) + 1e-3);
  EXPECT_EQ(dot(a.data(), b.data(), 0), 0.0f);
  EXPECT_FLOAT_EQ(dot(a.data(), b.data(), 1), a[0] * b[0]);
}

}  // namespace
