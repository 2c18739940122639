#pragma once

#include <absl/container/flat_hash_map.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <string>
#include <vector>

#include "compiler/codegen/llvm/target_machine.h"
#include "compiler/ir/stmt.h"
#include "compiler/runtime/function_signature.h"
#include "compiler/target/llvm_target.h"

// The code generator's private state, shared by its source files: codegen_function.cc (entry
// points, signatures, module hooks), codegen_expr.cc (expressions), codegen_memory.cc (loads,
// stores, allocations), codegen_stmt.cc (statements and loops), codegen_parallel.cc (outlined
// parallel loops), codegen_math.cc (intrinsic calls).
namespace tessel::codegen::llvm_backend {

class CodeGen {
 public:
  CodeGen(llvm::LLVMContext& context, llvm::Module& module, const target::LlvmTarget& target);

  // Adds func; its signature, or the first error.
  absl::StatusOr<runtime::FunctionSignature> AddFunction(const ir::PrimFunc& func);
  // Defines the runtime hook globals and the signatures constant (runtime/generated_abi.h).
  void Finish(const std::vector<runtime::FunctionSignature>& signatures);
  // (function, host symbol) for every call_extern generated so far.
  const std::vector<std::pair<std::string, std::string>>& extern_calls() const {
    return extern_calls_;
  }

 private:
  // Types: registers (bool as i1) and memory (bool as i8).
  llvm::Type* TypeOf(ir::DataType t);
  llvm::Type* MemTypeOf(ir::DataType t);

  // Expressions.
  llvm::Value* Emit(const ir::Expr& e);
  llvm::Value* EmitBinaryValues(ir::NodeKind kind, ir::DataType t, llvm::Value* a, llvm::Value* b);
  // For signed a / b truncated toward zero with remainder r: whether the quotient is one above
  // the floor (i1, lane-wise).
  llvm::Value* TruncationRoundedUp(llvm::Value* r, llvm::Value* b);
  llvm::Value* EmitCast(ir::DataType to, ir::DataType from, llvm::Value* v);
  llvm::Value* EmitIfThenElse(const ir::CallNode* op);
  llvm::Value* EmitCall(const ir::CallNode* op);
  llvm::Value* EmitMath(const ir::CallNode* op);
  llvm::Value* EmitCallExtern(const ir::CallNode* op);
  // An integer index expression evaluated in 64 bits (scalar or vector): index arithmetic is
  // assumed not to overflow (ir/node.h), so 64-bit evaluation gives the same value and lets
  // LLVM address memory without per-use sign extensions.
  llvm::Value* EmitIndex(const ir::Expr& e);
  llvm::Value* Extend64(llvm::Value* v, ir::DataType t);
  llvm::Value* Splat(int lanes, llvm::Value* v);

  // Memory.
  llvm::Value* FlatIndex(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices);
  llvm::Value* BufferData(const ir::Buffer& buffer);
  llvm::Value* EmitLoad(const ir::BufferLoadNode* op);
  // mask_ for a load of `lanes` lanes.
  llvm::Value* LoadMask(int lanes);
  void EmitStore(const ir::BufferStoreNode* op);
  void EmitAllocate(const ir::Buffer& buffer, llvm::Value* elements, const ir::Stmt& body);

  // Statements.
  void Emit(const ir::Stmt& s);
  void EmitFor(const ir::ForNode* op);
  void EmitSerialLoop(const ir::ForNode* op, llvm::Value* begin, llvm::Value* end);
  void EmitParallelFor(const ir::ForNode* op);
  void EmitAssertFailure(const std::string& message);

  // Binding variables for a scope.
  void Bind(const ir::VarNode* var, llvm::Value* value);
  void Unbind(const ir::VarNode* var);

  void Fail(const std::string& message);
  llvm::Value* Poison(ir::DataType t) { return llvm::PoisonValue::get(TypeOf(t)); }
  llvm::Function* DeclareFunction(const std::string& name, llvm::Type* ret,
                                  std::vector<llvm::Type*> params);
  llvm::GlobalVariable* HookGlobal(const char* name);
  // A new function for generated code: attributes for the target.
  llvm::Function* NewFunction(const std::string& name, llvm::FunctionType* type,
                              llvm::GlobalValue::LinkageTypes linkage);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, uint64_t count, uint64_t align);

  llvm::LLVMContext& context_;
  llvm::Module& module_;
  const target::LlvmTarget& target_;
  llvm::IRBuilder<> b_;

  // The function being generated and its state.
  llvm::Function* function_ = nullptr;
  std::string func_name_;
  absl::flat_hash_map<const ir::VarNode*, llvm::Value*> vars_;
  // 64-bit copies of integer variables (loop counters), for EmitIndex.
  absl::flat_hash_map<const ir::VarNode*, llvm::Value*> index_vars_;
  // The region each BufferRealize'd buffer covers (multi-dimensional accesses are relative to it).
  absl::flat_hash_map<const ir::VarNode*, std::vector<ir::Range>> realized_;
  // Heap allocations live at this point, freed before a failure returns.
  std::vector<llvm::Value*> heap_;
  // Under a vector if_then_else: the lanes whose loads may run (null: all).
  llvm::Value* mask_ = nullptr;
  int parallel_depth_ = 0;
  int outlined_count_ = 0;
  std::vector<std::pair<std::string, std::string>> extern_calls_;
  std::string error_;
};

}  // namespace tessel::codegen::llvm_backend
