// The LLVM backend of Build (compiler/codegen/build.h), registered for target kind `llvm`.
#include <absl/status/status.h>
#include <llvm/IR/Module.h>


#include "compiler/codegen/build.h"
#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/codegen/llvm/compile.h"
#include "compiler/codegen/llvm/jit_module.h"
#include "compiler/codegen/step_timer.h"

namespace tessel::codegen::llvm_backend {
namespace {

absl::StatusOr<runtime::Module> BuildLlvm(const std::vector<ir::PrimFunc>& funcs,
                                          const target::Target& target,
                                          const BuildOptions& options) {
  absl::StatusOr<target::LlvmTarget> llvm_target = target::ResolveLlvmTarget(target);
  if (!llvm_target.ok()) return llvm_target.status();
  absl::StatusOr<GeneratedModule> generated;
  {
    StepTimer timer(options, "codegen");
    generated = GenerateModule(funcs, *llvm_target);
  }
  if (!generated.ok()) return generated.status();
  if (options.dump_ir != nullptr) {
    *options.dump_ir << "; LLVM IR before optimization\n" << PrintIr(*generated->module);
  }
  {
    StepTimer timer(options, "optimize");
    if (absl::Status s = Optimize(*generated->module, *llvm_target); !s.ok()) return s;
  }
  if (options.dump_ir != nullptr) {
    *options.dump_ir << "; LLVM IR after optimization\n" << PrintIr(*generated->module);
  }
  if (options.dump_asm != nullptr) {
    absl::StatusOr<std::string> assembly = EmitAssembly(*generated->module, *llvm_target);
    if (!assembly.ok()) return assembly.status();
    *options.dump_asm << *assembly;
  }
  absl::StatusOr<std::string> object;
  {
    StepTimer timer(options, "emit object");
    object = EmitObject(*generated->module, *llvm_target);
  }
  if (!object.ok()) return object.status();
  StepTimer timer(options, "link");
  return MakeObjectModule(*std::move(object), std::move(generated->signatures), *llvm_target);
}

[[maybe_unused]] const bool kRegistered = RegisterBackend("llvm", BuildLlvm);

}  // namespace

}  // namespace tessel::codegen::llvm_backend
