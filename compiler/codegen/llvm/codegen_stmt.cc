// Statements and loops.
#include <absl/strings/str_cat.h>
#include <llvm/IR/MDBuilder.h>

#include "compiler/codegen/llvm/codegen.h"
#include "compiler/ir/op.h"
#include "compiler/runtime/generated_abi.h"

namespace tessel::codegen::llvm_backend {
namespace {

using ir::NodeKind;

// !llvm.loop metadata with one hint, e.g. "llvm.loop.unroll.full".
llvm::MDNode* LoopHint(llvm::LLVMContext& context, const char* hint, llvm::Metadata* value) {
  std::vector<llvm::Metadata*> entry{llvm::MDString::get(context, hint)};
  if (value != nullptr) entry.push_back(value);
  llvm::MDNode* hint_node = llvm::MDNode::get(context, entry);
  llvm::TempMDTuple placeholder = llvm::MDNode::getTemporary(context, {});
  llvm::MDNode* loop = llvm::MDNode::get(context, {placeholder.get(), hint_node});
  loop->replaceOperandWith(0, loop);
  return loop;
}

}  // namespace

void CodeGen::Bind(const ir::VarNode* var, llvm::Value* value) {
  if (!vars_.emplace(var, value).second) {
    Fail(absl::StrCat("variable '", var->name, "' is defined twice"));
  }
}

void CodeGen::Unbind(const ir::VarNode* var) {
  vars_.erase(var);
  index_vars_.erase(var);
}

void CodeGen::EmitAssertFailure(const std::string& message) {
  llvm::GlobalVariable* hook = HookGlobal(runtime::kSetErrorSymbol);
  llvm::Value* fn = b_.CreateLoad(b_.getPtrTy(), hook);
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false);
  b_.CreateCall(type, fn, {b_.CreateGlobalStringPtr(absl::StrCat(func_name_, ": ", message))});
  for (llvm::Value* data : heap_) {
    b_.CreateCall(DeclareFunction("free", b_.getVoidTy(), {b_.getPtrTy()}), {data});
  }
  b_.CreateRet(b_.getInt32(-1));
}

void CodeGen::Emit(const ir::Stmt& s) {
  if (!error_.empty()) return;
  switch (s.kind()) {
    case NodeKind::kLetStmt: {
      const auto* op = s.as<ir::LetStmtNode>();
      Bind(op->var.get(), Emit(op->value));
      Emit(op->body);
      Unbind(op->var.get());
      return;
    }
    case NodeKind::kAttrStmt:
      Emit(s.as<ir::AttrStmtNode>()->body);
      return;
    case NodeKind::kAssertStmt: {
      const auto* op = s.as<ir::AssertStmtNode>();
      llvm::Function* fn = b_.GetInsertBlock()->getParent();
      auto* ok = llvm::BasicBlock::Create(context_, "assert_ok", fn);
      auto* failed = llvm::BasicBlock::Create(context_, "assert_failed", fn);
      b_.CreateCondBr(Emit(op->condition), ok, failed,
                      llvm::MDBuilder(context_).createBranchWeights(1 << 20, 1));
      b_.SetInsertPoint(failed);
      EmitAssertFailure(op->message);
      b_.SetInsertPoint(ok);
      Emit(op->body);
      return;
    }
    case NodeKind::kBufferStore:
      EmitStore(s.as<ir::BufferStoreNode>());
      return;
    case NodeKind::kBufferRealize: {
      const auto* op = s.as<ir::BufferRealizeNode>();
      if (vars_.contains(op->buffer->data.get())) {
        Emit(op->body);  // the storage of an argument
        return;
      }
      llvm::Value* count = b_.getInt64(1);
      for (const ir::Range& r : op->bounds) count = b_.CreateNSWMul(count, EmitIndex(r.extent));
      realized_[op->buffer->data.get()] = op->bounds;
      EmitAllocate(op->buffer, count, op->body);
      realized_.erase(op->buffer->data.get());
      return;
    }
    case NodeKind::kAllocate: {
      const auto* op = s.as<ir::AllocateNode>();
      llvm::Value* count = b_.getInt64(1);
      for (const ir::Expr& e : op->buffer->shape) count = b_.CreateNSWMul(count, EmitIndex(e));
      EmitAllocate(op->buffer, count, op->body);
      return;
    }
    case NodeKind::kFor:
      EmitFor(s.as<ir::ForNode>());
      return;
    case NodeKind::kIfThenElse: {
      const auto* op = s.as<ir::IfThenElseNode>();
      if (op->condition.dtype().is_vector()) {
        Fail("an if statement with a vector condition");
        return;
      }
      llvm::Function* fn = b_.GetInsertBlock()->getParent();
      auto* then_block = llvm::BasicBlock::Create(context_, "then", fn);
      auto* done = llvm::BasicBlock::Create(context_, "endif", fn);
      auto* else_block =
          op->else_case.defined() ? llvm::BasicBlock::Create(context_, "else", fn) : done;
      const auto* likely = op->condition.as<ir::CallNode>();
      llvm::MDNode* weights = likely != nullptr && likely->op == ir::Intrinsic::kLikely
                                  ? llvm::MDBuilder(context_).createBranchWeights(1 << 10, 1)
                                  : nullptr;
      b_.CreateCondBr(Emit(op->condition), then_block, else_block, weights);
      b_.SetInsertPoint(then_block);
      Emit(op->then_case);
      b_.CreateBr(done);
      if (op->else_case.defined()) {
        b_.SetInsertPoint(else_block);
        Emit(op->else_case);
        b_.CreateBr(done);
      }
      b_.SetInsertPoint(done);
      return;
    }
    case NodeKind::kSeqStmt:
      for (const ir::Stmt& child : s.as<ir::SeqStmtNode>()->seq) Emit(child);
      return;
    case NodeKind::kEvaluate:
      Emit(s.as<ir::EvaluateNode>()->value);
      return;
    default:
      break;
  }
  Fail(absl::StrCat("unexpected statement ", ir::NodeKindName(s.kind())));
}

void CodeGen::EmitFor(const ir::ForNode* op) {
  switch (op->for_kind) {
    case ir::ForKind::kThreadBinding:
      Fail(absl::StrCat("loop over '", op->loop_var.name(), "' is bound to ", op->thread_tag,
                        "; the llvm target runs no GPU threads (bind loops only for GPU targets)"));
      return;
    case ir::ForKind::kParallel:
      if (parallel_depth_ == 0) {
        EmitParallelFor(op);
        return;
      }
      break;  // a parallel loop inside another runs serially
    default:
      break;
  }
  llvm::Value* begin = EmitIndex(op->min);
  llvm::Value* end = b_.CreateNSWAdd(begin, EmitIndex(op->extent));
  EmitSerialLoop(op, begin, end);
}

void CodeGen::EmitSerialLoop(const ir::ForNode* op, llvm::Value* begin, llvm::Value* end) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* preheader = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context_, "for_" + op->loop_var.name(), fn);
  auto* body = llvm::BasicBlock::Create(context_, "for_body", fn);
  auto* exit = llvm::BasicBlock::Create(context_, "for_end", fn);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, op->loop_var.name());
  i->addIncoming(begin, preheader);
  b_.CreateCondBr(b_.CreateICmpSLT(i, end), body, exit);
  b_.SetInsertPoint(body);
  llvm::Value* value = op->loop_var.dtype().bits() == 64
                           ? static_cast<llvm::Value*>(i)
                           : b_.CreateTrunc(i, TypeOf(op->loop_var.dtype()));
  Bind(op->loop_var.get(), value);
  index_vars_[op->loop_var.get()] = i;
  Emit(op->body);
  Unbind(op->loop_var.get());
  llvm::Value* next = b_.CreateNSWAdd(i, b_.getInt64(1));
  llvm::BranchInst* back = b_.CreateBr(header);
  i->addIncoming(next, b_.GetInsertBlock());
  if (op->for_kind == ir::ForKind::kUnrolled) {
    back->setMetadata(llvm::LLVMContext::MD_loop,
                      LoopHint(context_, "llvm.loop.unroll.full", nullptr));
  } else if (op->for_kind == ir::ForKind::kVectorized) {
    back->setMetadata(llvm::LLVMContext::MD_loop,
                      LoopHint(context_, "llvm.loop.vectorize.enable",
                               llvm::ConstantAsMetadata::get(b_.getTrue())));
  }
  b_.SetInsertPoint(exit);
}

}  // namespace tessel::codegen::llvm_backend
