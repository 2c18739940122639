// Buffer loads and stores (scalar, contiguous vector, gather and scatter) and allocations.
#include <absl/strings/str_cat.h>
#include <llvm/IR/MDBuilder.h>

#include "compiler/codegen/llvm/codegen.h"
#include "compiler/ir/op.h"

namespace tessel::codegen::llvm_backend {
namespace {

// Allocations with a constant size up to this many bytes live on the stack.
constexpr uint64_t kMaxStackBytes = 64 * 1024;
constexpr uint64_t kHeapAlignment = 64;

// Whether index is Ramp(base, 1, lanes): a contiguous vector access.
const ir::RampNode* ContiguousRamp(const ir::Expr& index) {
  const auto* ramp = index.as<ir::RampNode>();
  return ramp != nullptr && ir::IsConstInt(ramp->stride, 1) ? ramp : nullptr;
}

}  // namespace

llvm::Value* CodeGen::LoadMask(int lanes) {
  const auto* type = llvm::cast<llvm::FixedVectorType>(mask_->getType());
  if (static_cast<int>(type->getNumElements()) == lanes) return mask_;
  // Lanes that do not correspond to the condition's: load when any lane is active.
  return b_.CreateVectorSplat(static_cast<unsigned>(lanes), b_.CreateOrReduce(mask_));
}

llvm::AllocaInst* CodeGen::EntryAlloca(llvm::Type* type, uint64_t count, uint64_t align) {
  llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
  llvm::AllocaInst* slot = entry.CreateAlloca(type, entry.getInt64(count));
  slot->setAlignment(llvm::Align(align));
  return slot;
}

llvm::Value* CodeGen::FlatIndex(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices) {
  if (indices.size() == 1) return EmitIndex(indices[0]);
  // A multi-dimensional access: element (i0, ..., in) at elem_offset + sum ik * strides[k]; in
  // realized storage, at sum (ik - min_k) * strides[k] over the realized region.
  auto realized = realized_.find(buffer->data.get());
  const std::vector<ir::Range>* region =
      realized != realized_.end() && realized->second.size() == indices.size() ? &realized->second
                                                                               : nullptr;
  std::vector<ir::Expr> strides = region != nullptr ? std::vector<ir::Expr>() : buffer->strides;
  if (strides.empty()) {
    ir::Expr stride = ir::IntImm(ir::kInt64, 1);
    strides.resize(indices.size());
    for (size_t k = indices.size(); k-- > 0;) {
      strides[k] = stride;
      const ir::Expr& extent = region != nullptr ? (*region)[k].extent : buffer->shape[k];
      stride = ir::Cast(ir::kInt64, extent) * stride;
    }
  }
  llvm::Value* offset = buffer->elem_offset.defined() && region == nullptr
                            ? EmitIndex(buffer->elem_offset)
                            : b_.getInt64(0);
  for (size_t k = 0; k < indices.size(); ++k) {
    llvm::Value* i = EmitIndex(indices[k]);
    if (region != nullptr) {
      llvm::Value* min = EmitIndex((*region)[k].min);
      if (i->getType()->isVectorTy()) {
        min = Splat(llvm::cast<llvm::FixedVectorType>(i->getType())->getNumElements(), min);
      }
      i = b_.CreateNSWSub(i, min);
    }
    llvm::Value* s = EmitIndex(strides[k]);
    if (i->getType()->isVectorTy() && !s->getType()->isVectorTy()) {
      s = Splat(llvm::cast<llvm::FixedVectorType>(i->getType())->getNumElements(), s);
    }
    if (i->getType()->isVectorTy() && !offset->getType()->isVectorTy()) {
      offset = Splat(llvm::cast<llvm::FixedVectorType>(i->getType())->getNumElements(), offset);
    }
    offset = b_.CreateNSWAdd(offset, b_.CreateNSWMul(i, s));
  }
  return offset;
}

// The buffer's data pointer, read out of vars_ at once: emitting the indices or the stored value
// may bind let variables, and an insertion can move the map's entries (an iterator held across it
// read freed memory, a crash that came and went with the heap's layout).
llvm::Value* CodeGen::BufferData(const ir::Buffer& buffer) {
  auto it = vars_.find(buffer->data.get());
  if (it != vars_.end()) return it->second;
  Fail(absl::StrCat("buffer '", buffer.name(), "' is used but not allocated"));
  return nullptr;
}

llvm::Value* CodeGen::EmitLoad(const ir::BufferLoadNode* op) {
  const ir::Buffer& buffer = op->buffer;
  llvm::Value* data = BufferData(buffer);
  if (data == nullptr) return Poison(op->dtype);
  const ir::DataType elem = buffer->dtype;
  llvm::Type* mem = MemTypeOf(elem);
  const llvm::Align align(elem.bytes() * elem.lanes());
  llvm::Value* value = nullptr;
  const ir::RampNode* ramp = op->indices.size() == 1 ? ContiguousRamp(op->indices[0]) : nullptr;
  if (op->dtype == elem) {
    llvm::Value* ptr = b_.CreateInBoundsGEP(mem, data, FlatIndex(buffer, op->indices));
    if (mask_ == nullptr) {
      value = b_.CreateAlignedLoad(mem, ptr, align);
    } else {
      // Under a vector condition: load only if some lane is active.
      llvm::Value* any = b_.CreateOrReduce(mask_);
      llvm::Type* one = llvm::FixedVectorType::get(mem, 1);
      value = b_.CreateExtractElement(
          b_.CreateMaskedLoad(one, ptr, align, b_.CreateVectorSplat(1, any)), uint64_t{0});
    }
  } else if (ramp != nullptr && elem.is_scalar()) {
    llvm::Type* vec = MemTypeOf(op->dtype);
    llvm::Value* ptr = b_.CreateInBoundsGEP(mem, data, EmitIndex(ramp->base));
    value = mask_ == nullptr ? static_cast<llvm::Value*>(b_.CreateAlignedLoad(vec, ptr, align))
                             : b_.CreateMaskedLoad(vec, ptr, align, LoadMask(op->dtype.lanes()));
  } else if (elem.is_scalar()) {
    llvm::Value* ptrs = b_.CreateInBoundsGEP(mem, data, FlatIndex(buffer, op->indices));
    value = b_.CreateMaskedGather(MemTypeOf(op->dtype), ptrs, align,
                                  mask_ == nullptr ? nullptr : LoadMask(op->dtype.lanes()));
  } else {
    Fail(absl::StrCat("a vector load of ", op->dtype.ToString(), " from buffer '", buffer.name(),
                      "' of ", elem.ToString()));
    return Poison(op->dtype);
  }
  if (op->dtype.is_bool() || (op->dtype.is_uint() && op->dtype.bits() == 1)) {
    value = b_.CreateICmpNE(value, llvm::Constant::getNullValue(value->getType()));
  }
  return value;
}

void CodeGen::EmitStore(const ir::BufferStoreNode* op) {
  const ir::Buffer& buffer = op->buffer;
  llvm::Value* data = BufferData(buffer);
  if (data == nullptr) return;
  const ir::DataType elem = buffer->dtype;
  const ir::DataType vt = op->value.dtype();
  llvm::Type* mem = MemTypeOf(elem);
  const llvm::Align align(elem.bytes() * elem.lanes());
  llvm::Value* value = Emit(op->value);
  if (vt.is_bool() || (vt.is_uint() && vt.bits() == 1)) value = b_.CreateZExt(value, MemTypeOf(vt));
  const ir::RampNode* ramp = op->indices.size() == 1 ? ContiguousRamp(op->indices[0]) : nullptr;
  if (vt == elem) {
    b_.CreateAlignedStore(value, b_.CreateInBoundsGEP(mem, data, FlatIndex(buffer, op->indices)),
                          align);
  } else if (ramp != nullptr && elem.is_scalar()) {
    b_.CreateAlignedStore(value, b_.CreateInBoundsGEP(mem, data, EmitIndex(ramp->base)), align);
  } else if (elem.is_scalar()) {
    llvm::Value* ptrs = b_.CreateInBoundsGEP(mem, data, FlatIndex(buffer, op->indices));
    b_.CreateMaskedScatter(value, ptrs, align);
  } else {
    Fail(absl::StrCat("a vector store of ", vt.ToString(), " to buffer '", buffer.name(), "' of ",
                      elem.ToString()));
  }
}

void CodeGen::EmitAllocate(const ir::Buffer& buffer, llvm::Value* elements, const ir::Stmt& body) {
  const ir::DataType elem = buffer->dtype;
  const uint64_t elem_bytes = static_cast<uint64_t>(elem.bytes()) * elem.lanes();
  const uint64_t align = std::max<uint64_t>(buffer->alignment, elem_bytes);
  const auto* constant = llvm::dyn_cast<llvm::ConstantInt>(elements);
  llvm::Value* data = nullptr;
  bool on_heap = false;
  if (constant != nullptr && constant->getSExtValue() * elem_bytes <= kMaxStackBytes) {
    data = EntryAlloca(MemTypeOf(elem), std::max<int64_t>(constant->getSExtValue(), 1), align);
  } else {
    on_heap = true;
    if (constant == nullptr) {
      llvm::Function* fn = b_.GetInsertBlock()->getParent();
      auto* ok = llvm::BasicBlock::Create(context_, "size_ok", fn);
      auto* negative = llvm::BasicBlock::Create(context_, "size_negative", fn);
      b_.CreateCondBr(b_.CreateICmpSLT(elements, b_.getInt64(0)), negative, ok,
                      llvm::MDBuilder(context_).createBranchWeights(1, 1 << 20));
      b_.SetInsertPoint(negative);
      EmitAssertFailure(absl::StrCat("Allocate of buffer '", buffer.name(), "': negative size"));
      b_.SetInsertPoint(ok);
    }
    // aligned_alloc wants a size that is a multiple of the alignment.
    llvm::Value* bytes = b_.CreateMul(elements, b_.getInt64(elem_bytes));
    bytes = b_.CreateAnd(b_.CreateAdd(bytes, b_.getInt64(kHeapAlignment)),
                         b_.getInt64(~(kHeapAlignment - 1)));
    llvm::Function* alloc =
        DeclareFunction("aligned_alloc", b_.getPtrTy(), {b_.getInt64Ty(), b_.getInt64Ty()});
    data = b_.CreateCall(alloc, {b_.getInt64(kHeapAlignment), bytes});
    llvm::BasicBlock* ok =
        llvm::BasicBlock::Create(context_, "alloc_ok", b_.GetInsertBlock()->getParent());
    llvm::BasicBlock* failed =
        llvm::BasicBlock::Create(context_, "alloc_failed", b_.GetInsertBlock()->getParent());
    b_.CreateCondBr(b_.CreateIsNull(data), failed, ok,
                    llvm::MDBuilder(context_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(failed);
    EmitAssertFailure(absl::StrCat("out of memory allocating buffer '", buffer.name(), "'"));
    b_.SetInsertPoint(ok);
    heap_.push_back(data);
  }
  Bind(buffer->data.get(), data);
  Emit(body);
  Unbind(buffer->data.get());
  if (on_heap) {
    heap_.pop_back();
    b_.CreateCall(DeclareFunction("free", b_.getVoidTy(), {b_.getPtrTy()}), {data});
  }
}

}  // namespace tessel::codegen::llvm_backend
