// Functions: signatures, the entry point that unpacks slots, the typed body, module hooks.
#include <absl/strings/str_cat.h>
#include <dlfcn.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "compiler/codegen/llvm/codegen.h"
#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/codegen/slot_signature.h"
#include "compiler/ir/op.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/generated_abi.h"

namespace tessel::codegen::llvm_backend {
CodeGen::CodeGen(llvm::LLVMContext& context, llvm::Module& module, const target::LlvmTarget& target)
    : context_(context), module_(module), target_(target), b_(context) {
  llvm::FastMathFlags flags;
  if (target.fast_math) {
    flags.setFast();
  } else if (target.fp_contract) {
    flags.setAllowContract();
  }
  b_.setFastMathFlags(flags);
}

void CodeGen::Fail(const std::string& message) {
  if (error_.empty()) error_ = message;
}

llvm::Function* CodeGen::NewFunction(const std::string& name, llvm::FunctionType* type,
                                     llvm::GlobalValue::LinkageTypes linkage) {
  llvm::Function* fn = llvm::Function::Create(type, linkage, name, module_);
  fn->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty()) fn->addFnAttr("target-features", target_.features);
  // Vectors as wide as the schedule asked for stay whole.
  fn->addFnAttr("min-legal-vector-width", std::to_string(target_.vector_bits));
  fn->addFnAttr("prefer-vector-width", std::to_string(target_.vector_bits));
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  return fn;
}

llvm::Function* CodeGen::DeclareFunction(const std::string& name, llvm::Type* ret,
                                         std::vector<llvm::Type*> params) {
  auto* type = llvm::FunctionType::get(ret, params, false);
  if (llvm::Function* existing = module_.getFunction(name)) {
    if (existing->getFunctionType() != type) {
      Fail(absl::StrCat("external function '", name, "' is called with two different signatures"));
      return nullptr;
    }
    return existing;
  }
  return llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module_);
}

llvm::GlobalVariable* CodeGen::HookGlobal(const char* name) {
  if (llvm::GlobalVariable* g = module_.getNamedGlobal(name)) return g;
  // Module::getOrInsertGlobal creates it (a `new GlobalVariable` here trips GCC's
  // mismatched-new-delete warning on LLVM's placement allocation).
  auto* g = llvm::cast<llvm::GlobalVariable>(module_.getOrInsertGlobal(name, b_.getPtrTy()));
  g->setLinkage(llvm::GlobalValue::ExternalLinkage);
  g->setInitializer(llvm::ConstantPointerNull::get(b_.getPtrTy()));
  // Exported for the loader, but never preempted: references stay inside the module.
  g->setVisibility(llvm::GlobalValue::ProtectedVisibility);
  g->setDSOLocal(true);
  return g;
}

absl::StatusOr<runtime::FunctionSignature> CodeGen::AddFunction(const ir::PrimFunc& func) {
  func_name_ = func->name;
  error_.clear();
  vars_.clear();
  index_vars_.clear();
  heap_.clear();
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("function '", func_name_, "': ", why));
  };
  if (module_.getFunction(func_name_) != nullptr) return fail("a function of this name exists");

  // The signature: parameters first, then variables only shapes define.
  absl::StatusOr<SlotSignature> slots = MakeSlotSignature(func, "the llvm backend");
  if (!slots.ok()) return slots.status();
  const runtime::FunctionSignature& sig = slots->signature;
  std::vector<llvm::Type*> slot_types;
  for (const ir::Var& v : slots->slot_vars) {
    slot_types.push_back(func.BufferOf(v).defined() ? b_.getPtrTy() : TypeOf(v.dtype()));
  }

  // The body, with typed parameters.
  llvm::Function* kernel =
      NewFunction(func_name_ + ".body", llvm::FunctionType::get(b_.getInt32Ty(), slot_types, false),
                  llvm::GlobalValue::InternalLinkage);
  for (size_t i = 0; i < sig.params.size(); ++i) {
    if (sig.params[i].kind != runtime::ParamSpec::Kind::kTensor) continue;
    kernel->addParamAttr(i, llvm::Attribute::NoAlias);
    kernel->addParamAttr(
        i, llvm::Attribute::getWithAlignment(context_, llvm::Align(sig.params[i].alignment)));
  }
  function_ = kernel;
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", kernel));
  for (size_t k = 0; k < slots->slot_vars.size(); ++k) {
    kernel->getArg(k)->setName(slots->slot_vars[k].name());
    Bind(slots->slot_vars[k].get(), kernel->getArg(k));
  }
  for (const ir::Var& v : slots->zero_offsets) {
    if (!vars_.contains(v.get())) Bind(v.get(), llvm::ConstantInt::get(TypeOf(v.dtype()), 0));
  }
  Emit(func->body);
  // On failure the half-built module is dropped by the caller.
  if (!error_.empty()) return fail(error_);
  b_.CreateRet(b_.getInt32(0));

  // The entry point: slots to typed arguments.
  llvm::Function* entry =
      NewFunction(func_name_, llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy()}, false),
                  llvm::GlobalValue::ExternalLinkage);
  entry->setVisibility(llvm::GlobalValue::ProtectedVisibility);
  entry->setDSOLocal(true);
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", entry));
  std::vector<llvm::Value*> args;
  for (size_t k = 0; k < slot_types.size(); ++k) {
    llvm::Value* word = b_.CreateLoad(
        b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), entry->getArg(0), k));
    llvm::Type* type = slot_types[k];
    if (type->isPointerTy()) {
      args.push_back(b_.CreateIntToPtr(word, type));
    } else if (type->isFloatingPointTy()) {
      args.push_back(b_.CreateFPCast(b_.CreateBitCast(word, b_.getDoubleTy()), type));
    } else {
      args.push_back(b_.CreateTrunc(word, type));
    }
  }
  b_.CreateRet(b_.CreateCall(kernel, args));
  return sig;
}

void CodeGen::Finish(const std::vector<runtime::FunctionSignature>& signatures) {
  llvm::Constant* json =
      llvm::ConstantDataArray::getString(context_, runtime::SignaturesToJson(signatures), true);
  auto* g = llvm::cast<llvm::GlobalVariable>(
      module_.getOrInsertGlobal(runtime::kSignaturesSymbol, json->getType()));
  g->setLinkage(llvm::GlobalValue::ExternalLinkage);
  g->setConstant(true);
  g->setInitializer(json);
  g->setVisibility(llvm::GlobalValue::ProtectedVisibility);
  g->setDSOLocal(true);
}

absl::StatusOr<GeneratedModule> GenerateModule(const std::vector<ir::PrimFunc>& funcs,
                                               const target::LlvmTarget& target) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = CreateTargetMachine(target);
  if (!tm.ok()) return tm.status();
  GeneratedModule out;
  out.context = std::make_unique<llvm::LLVMContext>();
  out.module = std::make_unique<llvm::Module>("tessel", *out.context);
  out.module->setTargetTriple(target.triple);
  out.module->setDataLayout((*tm)->createDataLayout());
  CodeGen codegen(*out.context, *out.module, target);
  for (const ir::PrimFunc& func : funcs) {
    absl::StatusOr<runtime::FunctionSignature> sig = codegen.AddFunction(func);
    if (!sig.ok()) return sig.status();
    out.signatures.push_back(*std::move(sig));
  }
  codegen.Finish(out.signatures);
  // Code for this host links against this process: a call_extern name it lacks would fail at
  // link time with a message that does not name it.
  if (target.is_host) {
    for (const auto& [function, symbol] : codegen.extern_calls()) {
      if (dlsym(RTLD_DEFAULT, symbol.c_str()) == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "function '", function, "': call_extern '", symbol,
            "' names no function of this process (host functions must be exported, e.g. by "
            "linking the executable with -rdynamic)"));
      }
    }
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*out.module, &os)) {
    return absl::InternalError(absl::StrCat("the llvm backend generated invalid IR: ", problems));
  }
  return out;
}

}  // namespace tessel::codegen::llvm_backend
