#include "compiler/testing/backends.h"

#include "compiler/codegen/build.h"

namespace tessel::testing {

std::vector<Backend> AllBackends() { return {Backend::kInterp, Backend::kLlvm}; }

std::string BackendName(Backend backend) { return backend == Backend::kInterp ? "interp" : "llvm"; }

absl::Status RunOn(Backend backend, const ir::PrimFunc& func,
                   const std::vector<interp::Arg>& args) {
  if (backend == Backend::kInterp) return interp::Run(func, args);
  absl::StatusOr<runtime::Module> module = codegen::Build({func}, kTestLlvmTarget);
  if (!module.ok()) return module.status();
  absl::StatusOr<runtime::Function> f = module->GetFunction(func->name);
  if (!f.ok()) return f.status();
  return (*f)(std::span<const runtime::Arg>(args.data(), args.size()));
}

}  // namespace tessel::testing
