// Intrinsic calls: math, bit operations, if_then_else, call_extern.
#include <absl/strings/str_cat.h>
#include <llvm/IR/MDBuilder.h>

#include "compiler/codegen/llvm/codegen.h"
#include "compiler/codegen/llvm/math_approx.h"
#include "compiler/ir/printer.h"

namespace tessel::codegen::llvm_backend {

llvm::Value* CodeGen::EmitCall(const ir::CallNode* op) {
  using ir::Intrinsic;
  const ir::DataType t = op->dtype;
  switch (op->op) {
    case Intrinsic::kExp:
    case Intrinsic::kLog:
    case Intrinsic::kSqrt:
    case Intrinsic::kTanh:
    case Intrinsic::kSigmoid:
    case Intrinsic::kPow:
    case Intrinsic::kFabs:
    case Intrinsic::kFloor:
    case Intrinsic::kCeil:
    case Intrinsic::kRound:
      return EmitMath(op);
    case Intrinsic::kPopcount:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, Emit(op->args[0]));
    case Intrinsic::kShiftLeft: {
      llvm::Value* x = Emit(op->args[0]);
      return b_.CreateShl(x, Emit(op->args[1]));
    }
    case Intrinsic::kShiftRight: {
      llvm::Value* x = Emit(op->args[0]);
      llvm::Value* n = Emit(op->args[1]);
      return t.is_int() ? b_.CreateAShr(x, n) : b_.CreateLShr(x, n);
    }
    case Intrinsic::kBitwiseAnd: {
      llvm::Value* x = Emit(op->args[0]);
      return b_.CreateAnd(x, Emit(op->args[1]));
    }
    case Intrinsic::kBitwiseOr: {
      llvm::Value* x = Emit(op->args[0]);
      return b_.CreateOr(x, Emit(op->args[1]));
    }
    case Intrinsic::kBitwiseXor: {
      llvm::Value* x = Emit(op->args[0]);
      return b_.CreateXor(x, Emit(op->args[1]));
    }
    case Intrinsic::kBitwiseNot:
      return b_.CreateNot(Emit(op->args[0]));
    case Intrinsic::kIfThenElse:
      return EmitIfThenElse(op);
    case Intrinsic::kLikely:
      return Emit(op->args[0]);
    case Intrinsic::kStorageSync:
      // Barriers order GPU threads; a CPU function has one thread per task.
      return b_.getInt32(0);
    case Intrinsic::kCallExtern:
      return EmitCallExtern(op);
  }
  Fail(absl::StrCat("unexpected intrinsic ", ir::IntrinsicName(op->op)));
  return Poison(t);
}

llvm::Value* CodeGen::EmitIfThenElse(const ir::CallNode* op) {
  const ir::Expr& cond = op->args[0];
  if (cond.dtype().is_vector()) {
    // Lane by lane: each branch's loads run only in the lanes that take it.
    llvm::Value* c = Emit(cond);
    llvm::Value* outer = mask_;
    mask_ = outer == nullptr ? c : b_.CreateAnd(outer, c);
    llvm::Value* then_value = Emit(op->args[1]);
    llvm::Value* not_c = b_.CreateNot(c);
    mask_ = outer == nullptr ? not_c : b_.CreateAnd(outer, not_c);
    llvm::Value* else_value = Emit(op->args[2]);
    mask_ = outer;
    return b_.CreateSelect(c, then_value, else_value);
  }
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* then_block = llvm::BasicBlock::Create(context_, "if_then", fn);
  auto* else_block = llvm::BasicBlock::Create(context_, "if_else", fn);
  auto* done = llvm::BasicBlock::Create(context_, "if_done", fn);
  b_.CreateCondBr(Emit(cond), then_block, else_block);
  b_.SetInsertPoint(then_block);
  llvm::Value* then_value = Emit(op->args[1]);
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(else_block);
  llvm::Value* else_value = Emit(op->args[2]);
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(then_value->getType(), 2);
  phi->addIncoming(then_value, then_end);
  phi->addIncoming(else_value, else_end);
  return phi;
}

llvm::Value* CodeGen::EmitMath(const ir::CallNode* op) {
  using ir::Intrinsic;
  const ir::DataType t = op->dtype;
  llvm::Value* x = Emit(op->args[0]);
  switch (op->op) {
    case Intrinsic::kSqrt:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case Intrinsic::kFabs:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    case Intrinsic::kFloor:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
    case Intrinsic::kCeil:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
    case Intrinsic::kRound:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::round, x);
    case Intrinsic::kPow:
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, Emit(op->args[1]));
    default:
      break;
  }
  // exp, log, tanh, sigmoid: float32 (and float16, through float32) by polynomial; float64 by
  // the C library, lane by lane.
  if (t.bits() <= 32) {
    llvm::Value* f =
        t.bits() == 32 ? x : b_.CreateFPExt(x, TypeOf(ir::DataType::Float(32, t.lanes())));
    llvm::Value* r = nullptr;
    switch (op->op) {
      case Intrinsic::kExp:
        r = EmitExp(b_, f);
        break;
      case Intrinsic::kLog:
        r = EmitLog(b_, f);
        break;
      case Intrinsic::kTanh:
        r = EmitTanh(b_, f);
        break;
      default:
        r = EmitSigmoid(b_, f);
        break;
    }
    return t.bits() == 32 ? r : b_.CreateFPTrunc(r, TypeOf(t));
  }
  auto unary = [&](llvm::Value* lane) -> llvm::Value* {
    switch (op->op) {
      case Intrinsic::kExp:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, lane);
      case Intrinsic::kLog:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, lane);
      case Intrinsic::kTanh:
        return b_.CreateCall(DeclareFunction("tanh", b_.getDoubleTy(), {b_.getDoubleTy()}), {lane});
      default: {
        llvm::Value* one = llvm::ConstantFP::get(lane->getType(), 1.0);
        llvm::Value* e = b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(lane));
        return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
      }
    }
  };
  if (t.is_scalar() || op->op != Intrinsic::kTanh) return unary(x);
  llvm::Value* out = llvm::PoisonValue::get(x->getType());
  for (int i = 0; i < t.lanes(); ++i) {
    out = b_.CreateInsertElement(out, unary(b_.CreateExtractElement(x, uint64_t(i))), uint64_t(i));
  }
  return out;
}

llvm::Value* CodeGen::EmitCallExtern(const ir::CallNode* op) {
  const auto* name = op->args.empty() ? nullptr : op->args[0].as<ir::StringImmNode>();
  if (name == nullptr) {
    Fail("call_extern without a function name");
    return Poison(op->dtype);
  }
  std::vector<llvm::Value*> args;
  std::vector<llvm::Type*> types;
  for (size_t i = 1; i < op->args.size(); ++i) {
    args.push_back(Emit(op->args[i]));
    types.push_back(args.back()->getType());
  }
  extern_calls_.emplace_back(func_name_, name->value);
  llvm::Function* fn = DeclareFunction(name->value, TypeOf(op->dtype), types);
  if (fn == nullptr) return Poison(op->dtype);
  return b_.CreateCall(fn, args);
}

}  // namespace tessel::codegen::llvm_backend
