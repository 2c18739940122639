// Parallel loops: the body becomes a function over a chunk of iterations, called by a task
// function that the runtime's thread pool runs once per thread (runtime/parallel_abi.h).
#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>

#include "compiler/codegen/llvm/codegen.h"
#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"
#include "compiler/runtime/generated_abi.h"

namespace tessel::codegen::llvm_backend {
namespace {

// The variables body reads (including buffer data and the variables of buffer shapes), in
// order of first use.
std::vector<const ir::VarNode*> UsedVars(const ir::Stmt& body) {
  std::vector<const ir::VarNode*> used;
  absl::flat_hash_set<const ir::VarNode*> seen;
  auto add = [&](const ir::Expr& e) {
    if (const auto* v = e.as<ir::VarNode>(); v != nullptr && seen.insert(v).second) {
      used.push_back(v);
    }
  };
  auto add_buffer = [&](const ir::Buffer& buffer) {
    add(buffer->data);
    for (const ir::Expr& e : buffer->shape) ir::PreOrderVisit(ir::Evaluate(e), add);
    for (const ir::Expr& e : buffer->strides) ir::PreOrderVisit(ir::Evaluate(e), add);
    if (buffer->elem_offset.defined()) ir::PreOrderVisit(ir::Evaluate(buffer->elem_offset), add);
  };
  ir::PreOrderVisit(
      body,
      [&](const ir::Expr& e) {
        add(e);
        if (const auto* load = e.as<ir::BufferLoadNode>()) add_buffer(load->buffer);
      },
      [&](const ir::Stmt& s) {
        if (const auto* store = s.as<ir::BufferStoreNode>()) add_buffer(store->buffer);
        if (const auto* alloc = s.as<ir::AllocateNode>()) {
          for (const ir::Expr& e : alloc->buffer->shape) ir::PreOrderVisit(ir::Evaluate(e), add);
        }
      });
  return used;
}

}  // namespace

void CodeGen::EmitParallelFor(const ir::ForNode* op) {
  llvm::Value* begin = EmitIndex(op->min);
  llvm::Value* extent = EmitIndex(op->extent);
  std::vector<const ir::VarNode*> captured;
  for (const ir::VarNode* v : UsedVars(op->body)) {
    if (vars_.contains(v)) captured.push_back(v);
  }
  const std::string base = absl::StrCat(func_name_, ".parallel", outlined_count_++);
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* ptr = b_.getPtrTy();

  // The closure: begin, extent, then the captured values.
  std::vector<llvm::Type*> fields{i64, i64};
  for (const ir::VarNode* v : captured) fields.push_back(vars_.at(v)->getType());
  llvm::StructType* closure_type = llvm::StructType::get(context_, fields);
  llvm::AllocaInst* closure = EntryAlloca(closure_type, 1, 8);
  b_.CreateStore(begin, b_.CreateStructGEP(closure_type, closure, 0));
  b_.CreateStore(extent, b_.CreateStructGEP(closure_type, closure, 1));
  for (size_t k = 0; k < captured.size(); ++k) {
    b_.CreateStore(vars_.at(captured[k]), b_.CreateStructGEP(closure_type, closure, k + 2));
  }

  // body(lo, hi, captured...): iterations [lo, hi). Pointers are noalias: each is an argument
  // buffer or an allocation of its own.
  std::vector<llvm::Type*> body_params{i64, i64};
  for (size_t k = 2; k < fields.size(); ++k) body_params.push_back(fields[k]);
  llvm::Function* body =
      NewFunction(base + ".body", llvm::FunctionType::get(i32, body_params, false),
                  llvm::GlobalValue::InternalLinkage);
  for (size_t k = 0; k < captured.size(); ++k) {
    if (fields[k + 2]->isPointerTy()) body->addParamAttr(k + 2, llvm::Attribute::NoAlias);
  }
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    auto saved_vars = std::move(vars_);
    auto saved_index_vars = std::move(index_vars_);
    auto saved_heap = std::move(heap_);
    llvm::Function* saved_function = function_;
    llvm::Value* saved_mask = mask_;
    vars_.clear();
    index_vars_.clear();
    heap_.clear();
    mask_ = nullptr;
    function_ = body;
    ++parallel_depth_;
    b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", body));
    for (size_t k = 0; k < captured.size(); ++k) vars_[captured[k]] = body->getArg(k + 2);
    EmitSerialLoop(op, body->getArg(0), body->getArg(1));
    b_.CreateRet(b_.getInt32(0));
    --parallel_depth_;
    function_ = saved_function;
    mask_ = saved_mask;
    vars_ = std::move(saved_vars);
    index_vars_ = std::move(saved_index_vars);
    heap_ = std::move(saved_heap);
  }

  // task(t, n, closure): the t-th of n equal chunks.
  llvm::Function* task =
      NewFunction(base + ".task", llvm::FunctionType::get(i32, {i32, i32, ptr}, false),
                  llvm::GlobalValue::InternalLinkage);
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", task));
    llvm::Value* data = task->getArg(2);
    std::vector<llvm::Value*> values;
    for (size_t k = 0; k < fields.size(); ++k) {
      values.push_back(b_.CreateLoad(fields[k], b_.CreateStructGEP(closure_type, data, k)));
    }
    llvm::Value* t = b_.CreateSExt(task->getArg(0), i64);
    llvm::Value* n = b_.CreateSExt(task->getArg(1), i64);
    llvm::Value* chunk = b_.CreateSDiv(b_.CreateAdd(values[1], b_.CreateSub(n, b_.getInt64(1))), n);
    llvm::Value* lo = b_.CreateAdd(values[0], b_.CreateMul(t, chunk));
    llvm::Value* end = b_.CreateAdd(values[0], values[1]);
    llvm::Value* hi = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateAdd(lo, chunk), end);
    std::vector<llvm::Value*> args{lo, hi};
    for (size_t k = 2; k < values.size(); ++k) args.push_back(values[k]);
    b_.CreateRet(b_.CreateCall(body, args));
  }

  // Launch, and return the first failure.
  llvm::Value* launch = b_.CreateLoad(ptr, HookGlobal(runtime::kParallelLaunchSymbol));
  auto* launch_type = llvm::FunctionType::get(i32, {ptr, ptr, i32}, false);
  llvm::Value* rc = b_.CreateCall(launch_type, launch, {task, closure, b_.getInt32(0)});
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* ok = llvm::BasicBlock::Create(context_, "parallel_ok", fn);
  auto* failed = llvm::BasicBlock::Create(context_, "parallel_failed", fn);
  b_.CreateCondBr(b_.CreateICmpEQ(rc, b_.getInt32(0)), ok, failed);
  b_.SetInsertPoint(failed);
  for (llvm::Value* data : heap_) {
    b_.CreateCall(DeclareFunction("free", b_.getVoidTy(), {ptr}), {data});
  }
  b_.CreateRet(rc);
  b_.SetInsertPoint(ok);
}

}  // namespace tessel::codegen::llvm_backend
