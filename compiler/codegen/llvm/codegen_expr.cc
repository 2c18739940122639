// Expressions: constants, variables, arithmetic, comparisons, casts, vectors, lets, and index
// arithmetic in 64 bits.
#include <absl/strings/str_cat.h>

#include "compiler/codegen/llvm/codegen.h"
#include "compiler/ir/printer.h"

namespace tessel::codegen::llvm_backend {
namespace {

using ir::NodeKind;

bool IsSigned(ir::DataType t) { return t.is_int(); }

// The operands of a two-operand node (each has its own node type).
std::pair<const ir::Expr*, const ir::Expr*> BinaryOperands(const ir::Expr& e) {
  switch (e.kind()) {
#define TESSEL_X(name)                       \
  case NodeKind::k##name: {                  \
    const auto* op = e.as<ir::name##Node>(); \
    return {&op->a, &op->b};                 \
  }
    TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    default:
      break;
  }
  return {nullptr, nullptr};
}

}  // namespace

llvm::Type* CodeGen::TypeOf(ir::DataType t) {
  llvm::Type* scalar = nullptr;
  switch (t.code()) {
    case ir::TypeCode::kBool:
      scalar = b_.getInt1Ty();
      break;
    case ir::TypeCode::kInt:
    case ir::TypeCode::kUInt:
      scalar = b_.getIntNTy(t.bits());
      break;
    case ir::TypeCode::kFloat:
      scalar = t.bits() == 16   ? b_.getHalfTy()
               : t.bits() == 32 ? b_.getFloatTy()
                                : b_.getDoubleTy();
      break;
    case ir::TypeCode::kHandle:
      scalar = b_.getPtrTy();
      break;
  }
  return t.is_vector() ? llvm::FixedVectorType::get(scalar, t.lanes()) : scalar;
}

llvm::Type* CodeGen::MemTypeOf(ir::DataType t) {
  if (t.is_bool() || (t.is_uint() && t.bits() == 1)) {
    llvm::Type* byte = b_.getInt8Ty();
    return t.is_vector() ? llvm::FixedVectorType::get(byte, t.lanes()) : byte;
  }
  return TypeOf(t);
}

llvm::Value* CodeGen::Splat(int lanes, llvm::Value* v) {
  return b_.CreateVectorSplat(static_cast<unsigned>(lanes), v);
}

llvm::Value* CodeGen::Extend64(llvm::Value* v, ir::DataType t) {
  llvm::Type* i64 = TypeOf(ir::DataType::Int(64, t.lanes()));
  if (t.bits() == 64) return v;
  return IsSigned(t) ? b_.CreateSExt(v, i64) : b_.CreateZExt(v, i64);
}

llvm::Value* CodeGen::EmitIndex(const ir::Expr& e) {
  const ir::DataType t = e.dtype();
  if (!t.is_integer()) return Extend64(Emit(e), t);
  switch (e.kind()) {
    case NodeKind::kIntImm: {
      const int64_t v = e.as<ir::IntImmNode>()->value;
      return b_.getInt64(t.is_uint() && t.bits() < 64 ? v & ((int64_t{1} << t.bits()) - 1) : v);
    }
    case NodeKind::kVar: {
      auto it = index_vars_.find(e.as<ir::VarNode>());
      if (it != index_vars_.end()) return it->second;
      return Extend64(Emit(e), t);
    }
    case NodeKind::kAdd: {
      const auto* op = e.as<ir::AddNode>();
      return b_.CreateNSWAdd(EmitIndex(op->a), EmitIndex(op->b));
    }
    case NodeKind::kSub: {
      const auto* op = e.as<ir::SubNode>();
      return b_.CreateNSWSub(EmitIndex(op->a), EmitIndex(op->b));
    }
    case NodeKind::kMul: {
      const auto* op = e.as<ir::MulNode>();
      return b_.CreateNSWMul(EmitIndex(op->a), EmitIndex(op->b));
    }
    case NodeKind::kRamp: {
      const auto* op = e.as<ir::RampNode>();
      llvm::Value* base = Splat(op->lanes, EmitIndex(op->base));
      llvm::Value* stride = Splat(op->lanes, EmitIndex(op->stride));
      std::vector<llvm::Constant*> steps;
      for (int i = 0; i < op->lanes; ++i) steps.push_back(b_.getInt64(i));
      return b_.CreateNSWAdd(base, b_.CreateNSWMul(stride, llvm::ConstantVector::get(steps)));
    }
    case NodeKind::kBroadcast: {
      const auto* op = e.as<ir::BroadcastNode>();
      return Splat(op->lanes, EmitIndex(op->value));
    }
    default:
      break;
  }
  if (t.is_int()) {
    // Division, modulo, min and max of values that fit their type give the same value in 64
    // bits; evaluate them there so their operands stay 64-bit.
    switch (e.kind()) {
      case NodeKind::kFloorDiv:
      case NodeKind::kFloorMod:
      case NodeKind::kDiv:
      case NodeKind::kMod:
      case NodeKind::kMin:
      case NodeKind::kMax: {
        const auto [lhs, rhs] = BinaryOperands(e);
        llvm::Value* a = EmitIndex(*lhs);
        llvm::Value* b = EmitIndex(*rhs);
        return EmitBinaryValues(e.kind(), ir::DataType::Int(64, t.lanes()), a, b);
      }
      default:
        break;
    }
  }
  return Extend64(Emit(e), t);
}

llvm::Value* CodeGen::EmitCast(ir::DataType to, ir::DataType from, llvm::Value* v) {
  llvm::Type* type = TypeOf(to);
  if (to.element_of() == from.element_of()) return v;
  if (to.is_bool() || (to.is_uint() && to.bits() == 1)) {
    if (from.is_float()) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  const bool from_bool = from.is_bool() || (from.is_uint() && from.bits() == 1);
  if (from_bool) {
    return to.is_float() ? b_.CreateUIToFP(v, type) : b_.CreateZExt(v, type);
  }
  if (to.is_float() && from.is_float()) return b_.CreateFPCast(v, type);
  if (to.is_float()) return IsSigned(from) ? b_.CreateSIToFP(v, type) : b_.CreateUIToFP(v, type);
  if (from.is_float()) {
    // Saturating: out-of-range values and NaN have a defined result instead of poison.
    return b_.CreateIntrinsic(
        to.is_int() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
        {type, v->getType()}, {v});
  }
  return b_.CreateIntCast(v, type, IsSigned(from));
}

llvm::Value* CodeGen::TruncationRoundedUp(llvm::Value* r, llvm::Value* b) {
  // The remainder is non-zero and its sign differs from the divisor's.
  llvm::Value* zero = llvm::Constant::getNullValue(r->getType());
  return b_.CreateAnd(b_.CreateICmpNE(r, zero),
                      b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
}

llvm::Value* CodeGen::EmitBinaryValues(NodeKind kind, ir::DataType t, llvm::Value* a,
                                       llvm::Value* b) {
  const bool is_float = t.is_float();
  const bool is_signed = t.is_int();
  switch (kind) {
    case NodeKind::kAdd:
      return is_float ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
    case NodeKind::kSub:
      return is_float ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
    case NodeKind::kMul:
      return is_float ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
    case NodeKind::kDiv:
      if (is_float) return b_.CreateFDiv(a, b);
      return is_signed ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
    case NodeKind::kMod:
      if (is_float) return b_.CreateFRem(a, b);
      return is_signed ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
    case NodeKind::kFloorDiv: {
      if (is_float) {
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
      }
      if (!is_signed) return b_.CreateUDiv(a, b);
      // q - 1 when truncation rounded up.
      llvm::Value* q = b_.CreateSDiv(a, b);
      llvm::Value* adjust = TruncationRoundedUp(b_.CreateSRem(a, b), b);
      return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
    }
    case NodeKind::kFloorMod: {
      if (is_float) {
        llvm::Value* q = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
        return b_.CreateFSub(a, b_.CreateFMul(q, b));
      }
      if (!is_signed) return b_.CreateURem(a, b);
      llvm::Value* r = b_.CreateSRem(a, b);
      return b_.CreateSelect(TruncationRoundedUp(r, b), b_.CreateAdd(r, b), r);
    }
    case NodeKind::kMin:
      if (is_float) return b_.CreateSelect(b_.CreateFCmpOLT(a, b), a, b);
      return b_.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a,
                                      b);
    case NodeKind::kMax:
      if (is_float) return b_.CreateSelect(b_.CreateFCmpOGT(a, b), a, b);
      return b_.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a,
                                      b);
    case NodeKind::kEQ:
      return is_float ? b_.CreateFCmpOEQ(a, b) : b_.CreateICmpEQ(a, b);
    case NodeKind::kNE:
      return is_float ? b_.CreateFCmpUNE(a, b) : b_.CreateICmpNE(a, b);
    case NodeKind::kLT:
      if (is_float) return b_.CreateFCmpOLT(a, b);
      return is_signed ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
    case NodeKind::kLE:
      if (is_float) return b_.CreateFCmpOLE(a, b);
      return is_signed ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
    case NodeKind::kGT:
      if (is_float) return b_.CreateFCmpOGT(a, b);
      return is_signed ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
    case NodeKind::kGE:
      if (is_float) return b_.CreateFCmpOGE(a, b);
      return is_signed ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
    case NodeKind::kAnd:
      return b_.CreateAnd(a, b);
    case NodeKind::kOr:
      return b_.CreateOr(a, b);
    default:
      break;
  }
  Fail(absl::StrCat("unexpected binary node ", ir::NodeKindName(kind)));
  return llvm::PoisonValue::get(a->getType());
}

llvm::Value* CodeGen::Emit(const ir::Expr& e) {
  const ir::DataType t = e.dtype();
  switch (e.kind()) {
    case NodeKind::kIntImm:
      return llvm::ConstantInt::get(TypeOf(t), static_cast<uint64_t>(e.as<ir::IntImmNode>()->value),
                                    t.is_int());
    case NodeKind::kFloatImm:
      return llvm::ConstantFP::get(TypeOf(t), e.as<ir::FloatImmNode>()->value);
    case NodeKind::kStringImm:
      return b_.CreateGlobalStringPtr(e.as<ir::StringImmNode>()->value);
    case NodeKind::kVar: {
      auto it = vars_.find(e.as<ir::VarNode>());
      if (it == vars_.end()) {
        Fail(absl::StrCat("variable '", e.as<ir::VarNode>()->name, "' is used but not defined"));
        return Poison(t);
      }
      return it->second;
    }
    case NodeKind::kCast: {
      const auto* op = e.as<ir::CastNode>();
      return EmitCast(t, op->value.dtype(), Emit(op->value));
    }
#define TESSEL_X(name)                                      \
  case NodeKind::k##name: {                                 \
    const auto* op = e.as<ir::name##Node>();                \
    llvm::Value* a = Emit(op->a);                           \
    llvm::Value* b = Emit(op->b);                           \
    return EmitBinaryValues(e.kind(), op->a.dtype(), a, b); \
  }
      TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    case NodeKind::kNot:
      return b_.CreateNot(Emit(e.as<ir::NotNode>()->a));
    case NodeKind::kSelect: {
      const auto* op = e.as<ir::SelectNode>();
      llvm::Value* c = Emit(op->condition);
      return b_.CreateSelect(c, Emit(op->true_value), Emit(op->false_value));
    }
    case NodeKind::kRamp: {
      const auto* op = e.as<ir::RampNode>();
      const ir::DataType s = op->base.dtype();
      llvm::Value* base = Splat(op->lanes, Emit(op->base));
      llvm::Value* stride = Splat(op->lanes, Emit(op->stride));
      std::vector<llvm::Constant*> steps;
      for (int i = 0; i < op->lanes; ++i) {
        steps.push_back(s.is_float() ? llvm::ConstantFP::get(TypeOf(s), i)
                                     : llvm::ConstantInt::get(TypeOf(s), i));
      }
      llvm::Value* k = llvm::ConstantVector::get(steps);
      return s.is_float() ? b_.CreateFAdd(base, b_.CreateFMul(stride, k))
                          : b_.CreateAdd(base, b_.CreateMul(stride, k));
    }
    case NodeKind::kBroadcast: {
      const auto* op = e.as<ir::BroadcastNode>();
      return Splat(op->lanes, Emit(op->value));
    }
    case NodeKind::kLet: {
      const auto* op = e.as<ir::LetNode>();
      Bind(op->var.get(), Emit(op->value));
      llvm::Value* v = Emit(op->body);
      Unbind(op->var.get());
      return v;
    }
    case NodeKind::kCall:
      return EmitCall(e.as<ir::CallNode>());
    case NodeKind::kBufferLoad:
      return EmitLoad(e.as<ir::BufferLoadNode>());
    case NodeKind::kProducerLoad:
    case NodeKind::kReduce:
      Fail(absl::StrCat("the IR is not lowered: ", ir::NodeKindName(e.kind()), " ",
                        ir::ToString(e)));
      return Poison(t);
    default:
      break;
  }
  Fail(absl::StrCat("unexpected expression ", ir::NodeKindName(e.kind())));
  return Poison(t);
}

}  // namespace tessel::codegen::llvm_backend
