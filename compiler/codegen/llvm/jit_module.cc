#include "compiler/codegen/llvm/jit_module.h"

#include <absl/container/flat_hash_map.h>
#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include "compiler/codegen/llvm/link_shared.h"
#include "compiler/runtime/generated_abi.h"
#include "compiler/support/atomic_file.h"

namespace tessel::codegen::llvm_backend {
namespace {

std::string ErrorText(llvm::Error error) { return llvm::toString(std::move(error)); }

class ObjectModuleNode : public runtime::ModuleNode {
 public:
  ObjectModuleNode(std::string object, std::vector<runtime::FunctionSignature> signatures,
                   target::LlvmTarget target)
      : object_(std::move(object)),
        signatures_(std::move(signatures)),
        target_(std::move(target)) {}

  std::string kind() const override { return "llvm"; }

  // Links the object in memory and finds every function.
  absl::Status Link() {
    auto jit = llvm::orc::LLJITBuilder().create();
    if (!jit) return absl::InternalError("cannot start the JIT: " + ErrorText(jit.takeError()));
    jit_ = std::move(*jit);
    // The C library (aligned_alloc, free, tanh, ...) and call_extern functions from the process.
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit_->getDataLayout().getGlobalPrefix());
    if (!process) return absl::InternalError(ErrorText(process.takeError()));
    jit_->getMainJITDylib().addGenerator(std::move(*process));
    if (llvm::Error e =
            jit_->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object_, "tessel.o"))) {
      return absl::InternalError("cannot add the object to the JIT: " + ErrorText(std::move(e)));
    }
    for (const runtime::FunctionSignature& sig : signatures_) {
      auto address = jit_->lookup(sig.name);
      if (!address) {
        return absl::InvalidArgumentError(absl::StrCat("cannot link function '", sig.name,
                                                       "': ", ErrorText(address.takeError())));
      }
      entries_[sig.name] = address->toPtr<runtime::EntryFn>();
    }
    runtime::InstallRuntimeHooks([this](const char* name) -> void* {
      auto address = jit_->lookup(name);
      if (!address) {
        llvm::consumeError(address.takeError());
        return nullptr;
      }
      return address->toPtr<void*>();
    });
    return absl::OkStatus();
  }

  const std::vector<runtime::FunctionSignature>& signatures() const override { return signatures_; }

  absl::StatusOr<runtime::Invoker> Entry(const std::string& name) const override {
    if (!target_.is_host) {
      return absl::FailedPreconditionError(
          absl::StrCat("function '", name, "' is compiled for ", target_.triple,
                       " and cannot run on this host; save the module as an object (.o)"));
    }
    if (!target_.runs_here) {
      return absl::FailedPreconditionError(
          absl::StrCat("function '", name, "' is compiled for ", target_.ToString(),
                       ", which uses instructions this CPU lacks (", target_.missing_features,
                       "): it compiled and linked, but cannot run here"));
    }
    return runtime::HostInvoker(entries_.at(name));
  }

  absl::Status Save(const std::string& path) const override {
    if (path.ends_with(".o")) return support::WriteFileAtomically(path, object_);
    if (path.ends_with(".so")) {
      if (!target_.is_host) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot save '", path, "': linking a shared library for ", target_.triple,
                         " needs that platform's linker; save the object (.o) instead"));
      }
      return LinkSharedLibrary(object_, path);
    }
    return absl::InvalidArgumentError(
        absl::StrCat("cannot save '", path, "': the name must end in .so or .o"));
  }

 private:
  std::string object_;
  std::vector<runtime::FunctionSignature> signatures_;
  target::LlvmTarget target_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  absl::flat_hash_map<std::string, runtime::EntryFn> entries_;
};

}  // namespace

absl::StatusOr<runtime::Module> MakeObjectModule(std::string object,
                                                 std::vector<runtime::FunctionSignature> signatures,
                                                 const target::LlvmTarget& target) {
  auto node = std::make_shared<ObjectModuleNode>(std::move(object), std::move(signatures), target);
  if (target.is_host) {
    if (absl::Status s = node->Link(); !s.ok()) return s;
  }
  return runtime::Module(std::move(node));
}

}  // namespace tessel::codegen::llvm_backend
