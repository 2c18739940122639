#include "compiler/codegen/llvm/target_machine.h"

#include <absl/strings/str_cat.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Target/TargetMachine.h>

namespace tessel::codegen::llvm_backend {

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(
    const target::LlvmTarget& target) {
  target::InitializeLlvm();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (llvm_target == nullptr) return absl::InvalidArgumentError(error);
  llvm::TargetOptions options;
  if (target.fp_contract) options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  const llvm::CodeGenOpt::Level level = target.opt_level == 0   ? llvm::CodeGenOpt::None
                                        : target.opt_level == 1 ? llvm::CodeGenOpt::Less
                                        : target.opt_level == 2 ? llvm::CodeGenOpt::Default
                                                                : llvm::CodeGenOpt::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(llvm_target->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_, std::nullopt, level));
  if (tm == nullptr) {
    return absl::InternalError(absl::StrCat("LLVM made no target machine for ", target.ToString()));
  }
  return tm;
}

}  // namespace tessel::codegen::llvm_backend
