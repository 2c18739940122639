#include "compiler/driver/build.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <llvm/IR/Module.h>

#include <chrono>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/codegen/llvm/compile.h"
#include "compiler/codegen/llvm/jit_module.h"

namespace tessel::driver {
namespace {

// Prints a step's time to options.timing when it ends.
class StepTimer {
 public:
  StepTimer(const BuildOptions& options, const char* step)
      : out_(options.timing), step_(step), start_(std::chrono::steady_clock::now()) {}
  ~StepTimer() {
    if (out_ == nullptr) return;
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - start_);
    *out_ << step_ << ": " << us.count() << " us\n";
  }

 private:
  std::ostream* out_;
  const char* step_;
  std::chrono::steady_clock::time_point start_;
};

absl::StatusOr<runtime::Module> BuildLlvm(const std::vector<ir::PrimFunc>& funcs,
                                          const Target& target, const BuildOptions& options) {
  namespace cg = codegen::llvm_backend;
  absl::StatusOr<cg::LlvmTarget> llvm_target = cg::ResolveLlvmTarget(target);
  if (!llvm_target.ok()) return llvm_target.status();
  absl::StatusOr<cg::GeneratedModule> generated;
  {
    StepTimer timer(options, "codegen");
    generated = cg::GenerateModule(funcs, *llvm_target);
  }
  if (!generated.ok()) return generated.status();
  if (options.dump_ir != nullptr) {
    *options.dump_ir << "; LLVM IR before optimization\n" << cg::PrintIr(*generated->module);
  }
  {
    StepTimer timer(options, "optimize");
    if (absl::Status s = cg::Optimize(*generated->module, *llvm_target); !s.ok()) return s;
  }
  if (options.dump_ir != nullptr) {
    *options.dump_ir << "; LLVM IR after optimization\n" << cg::PrintIr(*generated->module);
  }
  if (options.dump_asm != nullptr) {
    absl::StatusOr<std::string> assembly = cg::EmitAssembly(*generated->module, *llvm_target);
    if (!assembly.ok()) return assembly.status();
    *options.dump_asm << *assembly;
  }
  absl::StatusOr<std::string> object;
  {
    StepTimer timer(options, "emit object");
    object = cg::EmitObject(*generated->module, *llvm_target);
  }
  if (!object.ok()) return object.status();
  StepTimer timer(options, "link");
  return cg::MakeObjectModule(*std::move(object), std::move(generated->signatures), *llvm_target);
}

}  // namespace

absl::StatusOr<runtime::Module> Build(const std::vector<ir::PrimFunc>& funcs, const Target& target,
                                      const BuildOptions& options) {
  if (target.kind() == "llvm") return BuildLlvm(funcs, target, options);
  return absl::UnimplementedError(
      absl::StrCat("target kind '", target.kind(), "' has no backend in this build"));
}

absl::StatusOr<runtime::Module> Build(const std::vector<ir::PrimFunc>& funcs,
                                      std::string_view target, const BuildOptions& options) {
  absl::StatusOr<Target> parsed = Target::Parse(target);
  if (!parsed.ok()) return parsed.status();
  return Build(funcs, *parsed, options);
}

}  // namespace tessel::driver
