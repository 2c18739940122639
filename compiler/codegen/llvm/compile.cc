#include "compiler/codegen/llvm/compile.h"

#include <absl/status/status.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "compiler/codegen/llvm/target_machine.h"

namespace tessel::codegen::llvm_backend {
namespace {

absl::StatusOr<std::string> Emit(llvm::Module& module, const target::LlvmTarget& target,
                                 llvm::CodeGenFileType kind) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = CreateTargetMachine(target);
  if (!tm.ok()) return tm.status();
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  if ((*tm)->addPassesToEmitFile(passes, os, nullptr, kind)) {
    return absl::InternalError("LLVM cannot emit this file type for " + target.ToString());
  }
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace

absl::Status Optimize(llvm::Module& module, const target::LlvmTarget& target) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = CreateTargetMachine(target);
  if (!tm.ok()) return tm.status();
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(tm->get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  const llvm::OptimizationLevel level = target.opt_level == 0   ? llvm::OptimizationLevel::O0
                                        : target.opt_level == 1 ? llvm::OptimizationLevel::O1
                                        : target.opt_level == 2 ? llvm::OptimizationLevel::O2
                                                                : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager passes = level == llvm::OptimizationLevel::O0
                                       ? builder.buildO0DefaultPipeline(level)
                                       : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
  return absl::OkStatus();
}

absl::StatusOr<std::string> EmitObject(llvm::Module& module, const target::LlvmTarget& target) {
  return Emit(module, target, llvm::CGFT_ObjectFile);
}

absl::StatusOr<std::string> EmitAssembly(llvm::Module& module, const target::LlvmTarget& target) {
  return Emit(module, target, llvm::CGFT_AssemblyFile);
}

std::string PrintIr(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

}  // namespace tessel::codegen::llvm_backend
